// @ts-check
// The server's messages and answers as JSDoc types, for the type checker only
// (docs/web-protocol.md says what each field means). Nothing here runs: the modules name
// these types with `import("./protocol.js")` in their comments, which the browser never
// loads. A message read from a socket is one of these by the protocol's word: each page
// says so once, where the message comes in (`ServerMessage` in net.js is the open shape).

/** @typedef {import("./pieces.js").Game} Game */
/** @typedef {"first" | "second"} Side the first mover (red, Cho) or the second (black, Han) */
/** @typedef {"first" | "second" | "both" | "watcher"} Role a connection's part in a game */
/** @typedef {"iccs" | "wxf" | "chinese" | "korean"} Notation */
/** @typedef {Record<string, string[]>} Dests from-square -> the squares it may go to */
/** @typedef {"computer" | "friend" | "local" | "imported"} GameKind */

/**
 * How a game ended: a state's `result`, a pass's `pass_ends`, an analysis' `over`.
 * @typedef {object} Result
 * @property {Side | null} winner null for a draw
 * @property {string} termination a `chuhan.game.Termination` value, or "imported"
 * @property {string} [reason] the referee's sentence (English)
 * @property {{cho: number, han: number} | null} [points] janggi's count
 * @property {string} [result] "1-0", "0-1", "1/2-1/2" or "*"
 */

/**
 * A move list entry, in every notation the server writes (null where one cannot).
 * @typedef {object} MoveEntry
 * @property {number} ply
 * @property {Side} side
 * @property {string} from
 * @property {string} to
 * @property {boolean} [pass]
 * @property {string} iccs
 * @property {string | null} [wxf]
 * @property {string | null} [chinese]
 * @property {string | null} [chinese_simplified] the Chinese move in simplified characters
 * @property {string | null} [korean]
 * @property {boolean} [capture]
 * @property {boolean} [check]
 */

/**
 * An engine line: the score from the side to move's view (`score_cp` or `mate`), from the
 * first mover's (`first_cp`, `first_mate`: the analysis socket's), and the moves in every
 * notation.
 * @typedef {object} EngineLine
 * @property {number} multipv
 * @property {number} depth
 * @property {number | null} [score_cp]
 * @property {number | null} [mate]
 * @property {number | null} [first_cp]
 * @property {number | null} [first_mate]
 * @property {{iccs: string[], wxf?: string[] | null, chinese?: string[] | null,
 *   korean?: string[] | null}} pv
 */

// ---------------------------------------------------------------- the game's socket

/**
 * A seat as the state (or a presence message) shows it.
 * @typedef {object} PlayerInfo
 * @property {string} [name]
 * @property {"human" | "computer"} [kind]
 * @property {boolean} [connected]
 * @property {number} [left_ms] when a player who is gone left (presence messages)
 * @property {number} [claim_ms] from when the opponent may claim the game
 */

/**
 * @typedef {object} ClockControl
 * @property {number} base_ms
 * @property {number} increment_ms
 * @property {number} periods byo-yomi periods
 * @property {number} period_ms
 * @property {number} [days] days per move of a correspondence control (0: none)
 * @property {string} [text]
 */

/**
 * @typedef {object} YourGame one of GET /api/account/games
 * @property {string} game_id
 * @property {string} url the seat's link
 * @property {string} seat
 * @property {string} variant
 * @property {string | null} opponent
 * @property {boolean} your_move
 * @property {number} ply
 * @property {boolean} rated
 * @property {boolean} correspondence
 * @property {string | null} time_control
 * @property {number | null} days
 * @property {number | null} deadline_ms
 * @property {number | null} left_ms
 * @property {number | null} opponent_vacation_ms until when the opponent is on vacation
 */

/**
 * @typedef {object} Vacation GET/POST/DELETE /api/account/vacation
 * @property {number} year the calendar year counted
 * @property {number} allowance the days a year
 * @property {number} used
 * @property {number} left
 * @property {number | null} until_ms the vacation running's end (null: none)
 */

/**
 * @typedef {object} Clock
 * @property {ClockControl} control
 * @property {{remaining_ms: number, periods: number}} first
 * @property {{remaining_ms: number, periods: number}} second
 * @property {Side | null} running
 * @property {number} [server_time_ms]
 */

/**
 * The janggi setup, before the first move.
 * @typedef {object} Setup
 * @property {Side} chooser
 * @property {string[]} choices
 * @property {Partial<Record<Side, string>>} [chosen]
 * @property {number | null} deadline_ms null until the chooser is connected
 * @property {string} [default]
 */

/**
 * What the last change was, for a notice.
 * @typedef {{kind: string, side?: Side, [field: string]: unknown}} LastEvent
 */

/**
 * The `state` message. `moves` may be left out, or hold only the entries after the first
 * `moves_from` (protocol 2): the view merges them into its whole list (`GameState`).
 * @typedef {object} StateMessage
 * @property {"state"} type
 * @property {number} [seq]
 * @property {string} game_id
 * @property {number} version
 * @property {GameKind} kind
 * @property {Game} variant
 * @property {string} rules
 * @property {Record<Side, string>} [side_names] "red"/"black" or "cho"/"han"
 * @property {number | null} [level]
 * @property {Partial<Record<Side, PlayerInfo>>} [players]
 * @property {"setup" | "playing" | "over"} status
 * @property {string} fen
 * @property {{square: string, side: Side, kind: string}[]} pieces
 * @property {Side} turn
 * @property {number} ply
 * @property {Dests} legal
 * @property {Dests} [premoves]
 * @property {boolean} [can_pass]
 * @property {Result | null} [pass_ends]
 * @property {Result | null} [pass_back_ends]
 * @property {{from: string, to: string} | null} [last_move]
 * @property {string | null} check
 * @property {boolean} [bikjang]
 * @property {boolean} [thinking]
 * @property {MoveEntry[]} [moves]
 * @property {number} [moves_from]
 * @property {Clock | null} clock
 * @property {{draw: Side | null, takeback: Side | null, rematch: Side | null}} [offers]
 * @property {Setup | null} setup
 * @property {Result | null} result
 * @property {{role: Role, your_turn: boolean}} [you]
 * @property {number} [server_time_ms]
 * @property {string | null} [time_control]
 * @property {number} [watchers]
 * @property {LastEvent | null} [last_event]
 * @property {string | null} [rematch_game]
 * @property {Side[]} [abortable] the seats that may abort the game now (who have not moved)
 * @property {number | null} [first_move_deadline_ms] when the side to move, which has not
 *   made a first move while the opponent has, runs out of time for it
 * @property {Record<string, string>} [headers]
 */

/** The state the game view keeps: a state message with the whole move list.
 * @typedef {StateMessage & {moves: MoveEntry[]}} GameState */

/**
 * @typedef {object} PresenceMessage
 * @property {"presence"} type
 * @property {Partial<Record<Side, PlayerInfo>>} players
 * @property {number} [watchers]
 */

/**
 * A chat line (and each line of a `chat_history`).
 * @typedef {object} ChatLine
 * @property {"chat"} type
 * @property {"players" | "spectators"} [room] (an older server sends none)
 * @property {string} from a seat, or "watcher"
 * @property {string} [name]
 * @property {string} text
 * @property {number} [time_ms]
 */

/**
 * @typedef {object} ErrorMessage
 * @property {"error"} type
 * @property {string} code
 * @property {string} message the server's sentence (English)
 * @property {number} [seq]
 */

/**
 * A message on a game's socket.
 * @typedef {{type: "welcome", game_id: string, role: Role, protocol?: number,
 *     server_time_ms?: number}
 *   | StateMessage
 *   | PresenceMessage
 *   | ChatLine
 *   | {type: "chat_history", messages?: ChatLine[]}
 *   | ErrorMessage
 *   | {type: "rematch_ready", game_id: string, watch_url: string, token: string,
 *       seat: Side | "both", seat_url: string}
 *   | {type: "rematch_ready", game_id: string, watch_url: string, token: null, seat: null,
 *       seat_url: null}
 *   | {type: "ack" | "pong", seq?: number, version?: number, server_time_ms?: number}
 * } GameMessage
 */

// ---------------------------------------------------------------- the analysis socket

/**
 * A move as the analysis board's positions give it: a move list entry and the FEN after it.
 * @typedef {MoveEntry & {fen: string}} AnalysedMove
 */

/**
 * The `position` answer: the position after the moves asked for.
 * @typedef {object} PositionAnswer
 * @property {number} [seq]
 * @property {Game} variant
 * @property {string} rules
 * @property {string} start_fen
 * @property {string} fen
 * @property {number} ply
 * @property {Side} turn
 * @property {Dests} dests
 * @property {boolean} [can_pass]
 * @property {string | null} [pass_move] janggi's pass, the king's square twice
 * @property {string | null} check
 * @property {Result | null} over
 * @property {number} [moves_from]
 * @property {AnalysedMove[]} moves all of them with `all_moves`, else the last one
 */

/**
 * The engine's lines for a position, best first, one message per completed depth.
 * @typedef {object} LinesMessage
 * @property {"lines"} type
 * @property {number} [seq]
 * @property {number} depth
 * @property {number} [nodes]
 * @property {number} [nps]
 * @property {boolean} done
 * @property {EngineLine[]} lines
 * @property {"mate" | "only_move" | "depth_cap" | "over" | "hash_full" | "time"} [not_deeper]
 *   why "Think longer" ended no deeper than the depth shown
 */

/**
 * A reviewed position: the engine's best line, or the rules' ending.
 * @typedef {object} Evaluation
 * @property {number} ply
 * @property {Side} [turn]
 * @property {EngineLine | null} [line]
 * @property {Result | null} [over]
 */

/**
 * A reviewed move: its mark, and the engine's move (in every notation) when marked.
 * @typedef {object} JudgedMove
 * @property {number} ply
 * @property {Side} side
 * @property {number} [drop]
 * @property {"inaccuracy" | "mistake" | "blunder" | null} mark
 * @property {Partial<Record<Notation, string | null>> | null} [best]
 * @property {number | null} [mated_in] the moves of the forced mate the move walked into
 */

/**
 * A whole review: each position's evaluation, each move's mark, each side's counts.
 * @typedef {object} ReviewDone
 * @property {"review_done"} type
 * @property {string} [game]
 * @property {number} plies
 * @property {Evaluation[]} evaluations
 * @property {JudgedMove[]} moves
 * @property {Record<Side, Record<string, number>>} summary each mark's count, and `acpl`
 */

/**
 * A message on the analysis socket.
 * @typedef {{type: "welcome", engine?: string, max_plies?: number, max_multipv?: number,
 *     seconds?: number}
 *   | {type: "game", seq?: number, game?: string,
 *       players: Partial<Record<Side, string | null>> | null, result?: Result | null,
 *       position: PositionAnswer}
 *   | PositionAnswer & {type: "position"}
 *   | LinesMessage
 *   | {type: "review_started", seq?: number, game?: string, plies: number}
 *   | {type: "review", game?: string, plies: number, evaluation: Evaluation}
 *   | ReviewDone
 *   | ErrorMessage
 *   | {type: "stopped" | "pong", seq?: number}
 * } AnalysisMessage
 */

// ---------------------------------------------------------------- REST answers

/**
 * GET /api/options: what the new-game form can offer.
 * @typedef {object} ServerOptions
 * @property {Record<string, string[]>} variants each game's rule sets
 * @property {Record<string, string>} default_rules
 * @property {number[]} levels
 * @property {string[]} time_controls
 * @property {string[]} [janggi_arrangements]
 * @property {boolean} engine_available
 * @property {boolean} custom_fen
 * @property {string | null} share_origin
 * @property {boolean} local_only
 */

/**
 * POST /api/games's request, as the page's choices give it (the server checks each field).
 * @typedef {object} GameRequest
 * @property {string} kind "computer", "friend" or "local"
 * @property {string} variant "xiangqi" or "janggi"
 * @property {string} [rules]
 * @property {string} [time_control]
 * @property {number} [level]
 * @property {string} [color] "first", "second" or "random"
 * @property {string} [name]
 * @property {string} [fen]
 * @property {boolean} [rated]
 */

/**
 * POST /api/games's answer: the new game and this player's seat.
 * @typedef {object} CreatedGame
 * @property {string} game_id
 * @property {Side | "both"} seat
 * @property {string} token
 * @property {string} seat_url
 * @property {string} [invite_url] friend games only
 * @property {string} watch_url
 * @property {string} ws_url
 * @property {boolean} [rated]
 */

/**
 * A game of POST /api/games/mine.
 * @typedef {object} ListedGame
 * @property {string} game_id
 * @property {string} token
 * @property {Side | "both"} seat
 * @property {string} kind
 * @property {Game} variant
 * @property {string} rules
 * @property {number | null} [level]
 * @property {string | null} time_control its text ("10 min + 5 s"), null untimed
 * @property {"setup" | "playing" | "over"} status
 * @property {Side} turn
 * @property {boolean} your_turn
 * @property {number} ply
 * @property {Result | null} result
 * @property {Partial<Record<Side, string>>} [names] the seats' names, where known
 * @property {string} seat_url
 */

/**
 * POST /api/import's answer: the games read (stored finished) and what could not be.
 * @typedef {object} ImportResult
 * @property {{game_id: string, watch_url: string, variant: Game, event?: string,
 *   red?: string, black?: string, result?: string, plies?: number}[]} games
 * @property {string[]} [errors]
 */

/**
 * POST /api/games/{id}/analysis's answer: the engine's lines for one position.
 * @typedef {object} PositionAnalysis
 * @property {number} ply
 * @property {string} fen
 * @property {Side} turn
 * @property {EngineLine[]} lines
 * @property {Result} [over] a position the rules ended (then no lines)
 */

/**
 * A rating in one game (Glicko-2).
 * @typedef {object} Rating
 * @property {number} rating
 * @property {number} [deviation]
 * @property {boolean} provisional
 * @property {number} [games]
 * @property {number} wins
 * @property {number} losses
 * @property {number} draws
 */

/**
 * The signed-in account.
 * @typedef {object} Account
 * @property {string} name
 * @property {number} [created_ms]
 * @property {Record<string, Rating>} [ratings]
 */

/**
 * GET /api/games/{id}/rating: whether the game is rated, and once settled, each seat's
 * change.
 * @typedef {object} GameRating
 * @property {string} game_id
 * @property {boolean} rated
 * @property {Partial<Record<Side, string>>} players
 * @property {Partial<Record<Side, {rating: number, provisional: boolean}>>} [ratings] each
 *   player's rating in a rated game (before the game once it is settled)
 * @property {{game: string, counted: boolean, code?: string | null, reason?: string | null,
 *   winner?: Side | null,
 *   changes: Partial<Record<Side, RatingChange>>} | null} settlement
 */

/**
 * @typedef {object} RatingChange
 * @property {string} name
 * @property {number} before
 * @property {number} after
 * @property {number} change
 * @property {number} [deviation]
 * @property {boolean} provisional
 */

/**
 * A game on a player's page (a watch link only: never a seat token).
 * @typedef {object} ProfileGame
 * @property {string} game_id
 * @property {string} watch_url
 * @property {Side} seat
 * @property {Game} variant
 * @property {string} rules
 * @property {string} kind
 * @property {boolean} rated
 * @property {"setup" | "playing" | "over"} status
 * @property {Result | null} result
 * @property {string | null} opponent
 * @property {Partial<Record<Side, string>>} [names]
 * @property {number} [updated_ms]
 */

/**
 * GET /api/players/{name}: a player's profile.
 * @typedef {object} Profile
 * @property {string} name
 * @property {number} created_ms
 * @property {Record<string, Rating>} ratings
 * @property {{wins: number, losses: number, draws: number, playing?: number}} record
 * @property {Record<string, {at_ms: number, rating: number, deviation: number}[]>} history
 * @property {ProfileGame[]} games
 */

/**
 * GET /api/leaderboard/{game}: the best established ratings.
 * @typedef {{game: string, players: (Rating & {rank: number, name: string})[],
 *   newcomers?: (Rating & {name: string})[]}} Leaderboard
 */

/**
 * GET /api/lobby/watch's answer: the games in play, the latest moved first, and who is in
 * the lobby.
 * @typedef {{games: {game_id: string, watch_url: string, kind: string, variant: Game,
 *   rules: string, names: Partial<Record<Side, string>>, level: number | null,
 *   time_control: string | null, rated: boolean, updated_ms: number}[],
 *   online: {count: number, names: string[]}}} LobbyWatch
 */

/**
 * Where a puzzle comes from: a collection's case, or a position of chuhan's self-play.
 * @typedef {{mined?: boolean, game?: string, ply?: number, collection?: string,
 *   case?: string, name?: string, [field: string]: unknown}} PuzzleSource
 */

/**
 * GET /api/puzzles/{id} (and /daily, with its `date`): the puzzle without its solution.
 * @typedef {object} Puzzle
 * @property {string} id
 * @property {Game} game
 * @property {string} rules
 * @property {string} fen
 * @property {number} plies
 * @property {number} mate_in
 * @property {Side} turn
 * @property {Dests} legal
 * @property {PuzzleSource} source
 * @property {string} [date] the daily puzzle's (UTC)
 */

/**
 * The notations of a winning line (korean for janggi only).
 * @typedef {{iccs: string[], wxf?: string[], chinese?: string[], korean?: string[]}} LineNotation
 */

/**
 * POST /api/puzzles/{id}/move's verdict.
 * @typedef {{result: "solved", move: string, moves: string[]}
 *   | {result: "right", move: string, reply: string, moves: string[], legal: Dests}
 *   | {result: "wrong", move: string, why?: string, solution: string[],
 *       notation: LineNotation, moves: string[]}} PuzzleVerdict
 */

export {}; // (a module: its types are named by import("./protocol.js"))
