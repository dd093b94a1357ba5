"""E-mail notices (issue 24): each account's address and digest setting, the digest of the
games where it is the account's move while it is away (:mod:`.service`, sent through SMTP
by :mod:`.mail`), and the unsubscribe link that works without signing in (:mod:`.routes`)."""
