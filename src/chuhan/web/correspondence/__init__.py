"""Correspondence games (days per move): the sweep that drives their far deadlines, and
the signed-in player's "your games" (:mod:`.service`, :mod:`.routes`)."""
