// @ts-check
// Interface text in English, Chinese (simplified and traditional) and Korean, and the piece
// names shown when hovering a piece (English, pinyin and Korean as players know them).

export const LANGUAGES = {
  en: "English",
  "zh-Hans": "简体中文",
  "zh-Hant": "繁體中文",
  ko: "한국어",
};

/** Each language's texts by key; the blocks below are merged into it.
 * @type {Record<string, Record<string, string>>} */
const STRINGS = {
  en: {
    rules_asian: "Asian (AXF)", rules_chinese: "Chinese (CXA)", rules_official: "Official (KJA)",
    rules_traditional: "Traditional", rules_modern: "Modern (no bikjang)",
    rules_classic: "Classic (1995 sheet)",
    wins: "{side} wins", drawn: "Draw", thinking: "The computer is thinking…",
    title: "chuhan 楚漢", home: "Home", newGame: "New game", xiangqi: "Xiangqi", janggi: "Janggi",
    game: "Game", rules: "Rules", timeControl: "Time control", tcNone: "None",
    tcFischer: "Fischer (base + increment)", tcByoyomi: "Byo-yomi", baseMinutes: "Minutes",
    increment: "Increment (s)", periods: "Periods", periodSeconds: "Period (s)",
    opponent: "Opponent", vsComputer: "The computer", vsFriend: "A friend (invite link)",
    vsHere: "Both sides on this screen", level: "Level", colour: "Your side", random: "Random",
    red: "Red", black: "Black", cho: "Cho", han: "Han", create: "Start",
    myGames: "My games", inProgress: "In progress", finished: "Finished", noGames: "No games yet.",
    open: "Open", inviteLink: "Send this link to your friend:", watchLink: "Watch link:",
    inviteLocalOnly: "This server listens on this computer only: for a friend on another machine, start it with chuhan serve --host 0.0.0.0.",
    copy: "Copy", copied: "Copied", waitingOpponent: "Waiting for your friend to join…",
    yourMove: "Your move", notifyTurn: "Tell me when it is my move", notifyBlocked: "The browser does not allow notifications from this page.", theirMove: "Opponent to move", toMove: "{side} to move",
    resign: "Resign", offerDraw: "Offer draw", takeback: "Takeback", pass: "Pass",
    accept: "Accept", decline: "Decline", flip: "Flip board", settings: "Settings",
    labels: "Piece labels", labelsChinese: "Chinese characters", labelsLetters: "Letters",
    notation: "Notation", notationWxf: "WXF", notationChinese: "Chinese", notationIccs: "ICCS",
    notationKorean: "Korean", sound: "Sounds", touchMove: "Touch-move (a picked piece must move)",
    language: "Language", rematch: "Rematch", ratedRematch: "Rated rematch", exportPgn: "Download PGN", exportFen: "Download FEN",
    importRecord: "Replay a record file (PGN, XQF, GIB, DhtmlXQ)", analyse: "Analyse with the engine",
    evaluation: "Evaluation", bestLine: "Best line", live: "Back to live", viewing: "Viewing move {n}",
    first: "First", prev: "Previous", next: "Next", last: "Last",
    setupTitle: "Choose your horses and elephants",
    setupReading: "Each arrangement reads along your own back rank from your left, as you sit.",
    setupWaitHan: "Han chooses first…",
    setupWaitCho: "Cho is choosing…", secondsLeft: "{n} s left",
    drawOffered: "Your opponent offers a draw.", takebackRequested: "Your opponent asks to take back.",
    offerSent: "Sent. Waiting for the answer…", reconnecting: "Connection lost: reconnecting…",
    connected: "Connected", spectating: "Watching", result: "Game over", resignConfirm: "Resign this game?",
    moves: "Moves", check: "Check!", bikjang: "Bikjang!", score: "Score", mate: "mate in {n}",
    confirm: "Confirm", cancel: "Cancel", variantRules: "Rule set", error: "Error: {message}",
    notFound: "This game does not exist.", badLink: "This seat link is not valid for this game: ask for the link again.",
    tooManyConnections: "The server has too many connections right now.",
    retryIn: "Trying again in {n} s.", watchersCount: "{n} watching",
    replay: "Replay", yourSide: "You play {side}",
    players: "Players", computerLevel: "Computer (level {n})", depth: "depth {n}",
    importError: "Could not read the file: {message}", startFen: "Start position (FEN, optional)",
    pressToAnalyse: "Analyse this position", analysing: "Thinking…",
  },
  "zh-Hans": {
    rules_asian: "亚洲规则", rules_chinese: "中国规则", rules_official: "韩国官方规则",
    rules_traditional: "传统规则", rules_modern: "现代规则（无对王）", rules_classic: "1995 规则",
    wins: "{side}胜", drawn: "和棋", thinking: "电脑思考中…",
    title: "楚汉 chuhan", home: "首页", newGame: "新对局", xiangqi: "象棋", janggi: "韩国象棋",
    game: "棋种", rules: "规则", timeControl: "计时", tcNone: "不计时",
    tcFischer: "加秒制（基本时间+每步加秒）", tcByoyomi: "读秒", baseMinutes: "分钟",
    increment: "每步加秒", periods: "读秒次数", periodSeconds: "每次秒数",
    opponent: "对手", vsComputer: "电脑", vsFriend: "朋友（邀请链接）", vsHere: "同屏双人",
    level: "等级", colour: "执子", random: "随机", red: "红方", black: "黑方", cho: "楚", han: "汉",
    create: "开始", myGames: "我的对局", inProgress: "进行中", finished: "已结束",
    noGames: "还没有对局。", open: "打开", inviteLink: "把这个链接发给朋友：", watchLink: "观战链接：",
    inviteLocalOnly: "服务器只在本机监听：要邀请其他电脑上的朋友，请用 chuhan serve --host 0.0.0.0 启动。",
    copy: "复制", copied: "已复制", waitingOpponent: "等待朋友加入…", yourMove: "轮到你走", notifyTurn: "轮到我走时通知我", notifyBlocked: "浏览器不允许本页面发送通知。",
    theirMove: "轮到对手", toMove: "{side}走", resign: "认输", offerDraw: "提和", takeback: "悔棋",
    pass: "停着", accept: "同意", decline: "拒绝", flip: "翻转棋盘", settings: "设置",
    labels: "棋子标记", labelsChinese: "汉字", labelsLetters: "字母", notation: "记谱",
    notationWxf: "WXF", notationChinese: "中文", notationIccs: "ICCS", notationKorean: "韩式坐标",
    sound: "声音", touchMove: "摸子走子（选中的棋子必须走）", language: "语言", rematch: "再来一局", ratedRematch: "再来一局计分赛",
    exportPgn: "下载 PGN", exportFen: "下载 FEN", importRecord: "打开棋谱（PGN、XQF、GIB、东萍 DhtmlXQ）",
    analyse: "引擎分析", evaluation: "评分", bestLine: "最佳着法", live: "回到当前",
    viewing: "查看第 {n} 步", first: "最前", prev: "上一步", next: "下一步", last: "最后",
    setupTitle: "选择马象布置", setupReading: "布置沿自己的底线、从自己的左手边读起。",
    setupWaitHan: "汉方先选…", setupWaitCho: "楚方正在选…",
    secondsLeft: "剩 {n} 秒", drawOffered: "对手提和。", takebackRequested: "对手请求悔棋。",
    offerSent: "已发送，等待答复…", reconnecting: "连接中断，正在重连…", connected: "已连接",
    spectating: "观战中", result: "对局结束", resignConfirm: "确定认输？", moves: "着法",
    check: "将军！", bikjang: "对王！", score: "得分", mate: "{n} 步杀", confirm: "确定",
    cancel: "取消", variantRules: "规则", error: "错误：{message}", notFound: "对局不存在。", badLink: "此座位链接对本局无效，请重新索取链接。",
    tooManyConnections: "服务器当前连接过多。", retryIn: "{n} 秒后重试。", watchersCount: "{n} 人观战",
    replay: "复盘", yourSide: "你执{side}", players: "棋手", computerLevel: "电脑（{n} 级）",
    depth: "深度 {n}", importError: "无法读取文件：{message}", startFen: "起始局面（FEN，可选）",
    pressToAnalyse: "分析此局面", analysing: "思考中…",
    term_checkmate: "将死", term_stalemate: "困毙",
    term_perpetual_check: "长将", term_perpetual_chase: "长捉",
    term_perpetual_mate_threat: "长杀", term_mixed_perpetual_attack: "一将一捉",
    term_repetition_draw: "循环作和", term_repetition: "重复局面",
    term_move_limit: "自然限着", term_insufficient_material: "双方无攻杀子力",
    term_bikjang: "对王", term_double_pass: "双方连续停着",
    term_points: "计分", term_resignation: "认输", term_time: "超时", term_agreement: "协议和棋",
  },
  "zh-Hant": {
    rules_asian: "亞洲規則", rules_chinese: "中國規則", rules_official: "韓國官方規則",
    rules_traditional: "傳統規則", rules_modern: "現代規則（無對王）", rules_classic: "1995 規則",
    wins: "{side}勝", drawn: "和棋", thinking: "電腦思考中…",
    title: "楚漢 chuhan", home: "首頁", newGame: "新對局", xiangqi: "象棋", janggi: "韓國象棋",
    game: "棋種", rules: "規則", timeControl: "計時", tcNone: "不計時",
    tcFischer: "加秒制（基本時間+每步加秒）", tcByoyomi: "讀秒", baseMinutes: "分鐘",
    increment: "每步加秒", periods: "讀秒次數", periodSeconds: "每次秒數",
    opponent: "對手", vsComputer: "電腦", vsFriend: "朋友（邀請連結）", vsHere: "同屏雙人",
    level: "等級", colour: "執子", random: "隨機", red: "紅方", black: "黑方", cho: "楚", han: "漢",
    create: "開始", myGames: "我的對局", inProgress: "進行中", finished: "已結束",
    noGames: "還沒有對局。", open: "打開", inviteLink: "把這個連結發給朋友：", watchLink: "觀戰連結：",
    inviteLocalOnly: "伺服器只在本機監聽：要邀請其他電腦上的朋友，請用 chuhan serve --host 0.0.0.0 啟動。",
    copy: "複製", copied: "已複製", waitingOpponent: "等待朋友加入…", yourMove: "輪到你走", notifyTurn: "輪到我走時通知我", notifyBlocked: "瀏覽器不允許本頁面發送通知。",
    theirMove: "輪到對手", toMove: "{side}走", resign: "認輸", offerDraw: "提和", takeback: "悔棋",
    pass: "停著", accept: "同意", decline: "拒絕", flip: "翻轉棋盤", settings: "設定",
    labels: "棋子標記", labelsChinese: "漢字", labelsLetters: "字母", notation: "記譜",
    notationWxf: "WXF", notationChinese: "中文", notationIccs: "ICCS", notationKorean: "韓式座標",
    sound: "聲音", touchMove: "摸子走子（選中的棋子必須走）", language: "語言", rematch: "再來一局", ratedRematch: "再來一局計分賽",
    exportPgn: "下載 PGN", exportFen: "下載 FEN", importRecord: "打開棋譜（PGN、XQF、GIB、東萍 DhtmlXQ）",
    analyse: "引擎分析", evaluation: "評分", bestLine: "最佳著法", live: "回到當前",
    viewing: "查看第 {n} 步", first: "最前", prev: "上一步", next: "下一步", last: "最後",
    setupTitle: "選擇馬象佈置", setupReading: "佈置沿自己的底線、從自己的左手邊讀起。",
    setupWaitHan: "漢方先選…", setupWaitCho: "楚方正在選…",
    secondsLeft: "剩 {n} 秒", drawOffered: "對手提和。", takebackRequested: "對手請求悔棋。",
    offerSent: "已發送，等待答覆…", reconnecting: "連線中斷，正在重連…", connected: "已連線",
    spectating: "觀戰中", result: "對局結束", resignConfirm: "確定認輸？", moves: "著法",
    check: "將軍！", bikjang: "對王！", score: "得分", mate: "{n} 步殺", confirm: "確定",
    cancel: "取消", variantRules: "規則", error: "錯誤：{message}", notFound: "對局不存在。", badLink: "此座位連結對本局無效，請重新索取連結。",
    tooManyConnections: "伺服器目前連線過多。", retryIn: "{n} 秒後重試。", watchersCount: "{n} 人觀戰",
    replay: "復盤", yourSide: "你執{side}", players: "棋手", computerLevel: "電腦（{n} 級）",
    depth: "深度 {n}", importError: "無法讀取檔案：{message}", startFen: "起始局面（FEN，可選）",
    pressToAnalyse: "分析此局面", analysing: "思考中…",
    term_checkmate: "將死", term_stalemate: "困斃",
    term_perpetual_check: "長將", term_perpetual_chase: "長捉",
    term_perpetual_mate_threat: "長殺", term_mixed_perpetual_attack: "一將一捉",
    term_repetition_draw: "循環作和", term_repetition: "重複局面",
    term_move_limit: "自然限著", term_insufficient_material: "雙方無攻殺子力",
    term_bikjang: "對王", term_double_pass: "雙方連續停著",
    term_points: "計分", term_resignation: "認輸", term_time: "超時", term_agreement: "協議和棋",
  },
  ko: {
    rules_asian: "아시아 규칙", rules_chinese: "중국 규칙", rules_official: "공식 (대한장기협회)",
    rules_traditional: "전통 규칙", rules_modern: "현대 규칙 (빅장 없음)", rules_classic: "1995 규칙",
    wins: "{side} 승", drawn: "무승부", thinking: "컴퓨터가 생각하는 중…",
    title: "초한 chuhan", home: "처음", newGame: "새 대국", xiangqi: "샹치 (중국 장기)",
    janggi: "장기", game: "게임", rules: "규칙", timeControl: "시간", tcNone: "없음",
    tcFischer: "피셔 (기본 + 수당 추가)", tcByoyomi: "초읽기", baseMinutes: "분",
    increment: "추가 (초)", periods: "초읽기 횟수", periodSeconds: "초읽기 (초)",
    opponent: "상대", vsComputer: "컴퓨터", vsFriend: "친구 (초대 링크)", vsHere: "한 화면에서 둘이",
    level: "레벨", colour: "내 편", random: "무작위", red: "홍", black: "흑", cho: "초", han: "한",
    create: "시작", myGames: "내 대국", inProgress: "진행 중", finished: "끝난 대국",
    noGames: "아직 대국이 없습니다.", open: "열기", inviteLink: "친구에게 이 링크를 보내세요:",
    watchLink: "관전 링크:",
    inviteLocalOnly: "이 서버는 이 컴퓨터에서만 접속할 수 있습니다. 다른 컴퓨터의 친구를 초대하려면 chuhan serve --host 0.0.0.0 으로 시작하세요.", copy: "복사", copied: "복사됨", waitingOpponent: "친구를 기다리는 중…",
    yourMove: "내 차례", notifyTurn: "내 차례가 되면 알림", notifyBlocked: "브라우저가 이 페이지의 알림을 허용하지 않습니다.", theirMove: "상대 차례", toMove: "{side} 차례", resign: "기권",
    offerDraw: "무승부 제안", takeback: "무르기", pass: "한수쉼", accept: "수락", decline: "거절",
    flip: "판 뒤집기", settings: "설정", labels: "기물 표시", labelsChinese: "한자",
    labelsLetters: "알파벳", notation: "기보", notationWxf: "WXF", notationChinese: "중국식",
    notationIccs: "ICCS", notationKorean: "한국식 좌표", sound: "소리",
    touchMove: "터치무브 (잡은 기물은 움직여야 함)", language: "언어", rematch: "다시 두기", ratedRematch: "레이팅 재대국",
    exportPgn: "PGN 내려받기", exportFen: "FEN 내려받기", importRecord: "기보 재생 (PGN·XQF·GIB·DhtmlXQ)",
    analyse: "엔진 분석", evaluation: "평가", bestLine: "최선 수순", live: "현재로",
    viewing: "{n}수 보는 중", first: "처음", prev: "이전", next: "다음", last: "마지막",
    setupTitle: "마·상 배치를 고르세요",
    setupReading: "배치는 자기 쪽 맨 끝 줄을 자기 왼쪽부터 읽습니다.",
    setupWaitHan: "한이 먼저 고릅니다…",
    setupWaitCho: "초가 고르는 중…", secondsLeft: "{n}초 남음", drawOffered: "상대가 무승부를 제안합니다.",
    takebackRequested: "상대가 무르기를 요청합니다.", offerSent: "보냈습니다. 답을 기다리는 중…",
    reconnecting: "연결 끊김: 다시 연결하는 중…", connected: "연결됨", spectating: "관전 중",
    result: "대국 종료", resignConfirm: "기권하시겠습니까?", moves: "수순", check: "장군!",
    bikjang: "빅장!", score: "점수", mate: "{n}수 외통", confirm: "확인", cancel: "취소",
    variantRules: "규칙", error: "오류: {message}", notFound: "없는 대국입니다.", badLink: "이 대국에 맞지 않는 자리 링크입니다. 링크를 다시 받으세요.",
    tooManyConnections: "지금 서버에 연결이 너무 많습니다.", retryIn: "{n}초 뒤에 다시 연결합니다.",
    watchersCount: "관전 {n}명", replay: "다시 보기",
    yourSide: "{side} 편", players: "대국자", computerLevel: "컴퓨터 ({n}단계)", depth: "깊이 {n}",
    importError: "파일을 읽을 수 없습니다: {message}", startFen: "시작 국면 (FEN, 선택)",
    pressToAnalyse: "이 국면 분석", analysing: "생각하는 중…",
    term_checkmate: "외통", term_stalemate: "둘 수 있는 수 없음",
    term_perpetual_check: "연속 장군", term_perpetual_chase: "연속 추격",
    term_perpetual_mate_threat: "연속 외통 위협", term_mixed_perpetual_attack: "장군과 추격의 반복",
    term_repetition_draw: "동형 반복 무승부", term_repetition: "동형 반복",
    term_move_limit: "수 제한", term_insufficient_material: "공격할 기물 부족",
    term_bikjang: "빅장", term_double_pass: "양측 연속 한수쉼",
    term_points: "점수 계산", term_resignation: "기권", term_time: "시간패", term_agreement: "합의 무승부",
  },
};

// Accounts and ratings (account.js), kept in a block of their own.
const ACCOUNT_STRINGS = {
  en: {
    signIn: "Sign in", signUp: "Sign up", signOut: "Sign out", accountName: "Name",
    accountPassword: "Password", myProfile: "My profile", changePassword: "Change password",
    currentPassword: "Current password", newPassword: "New password",
    passwordChanged: "Password changed; your other sessions are signed out.",
    deleteAccount: "Delete account",
    deleteConfirm: "Delete the account {name}? Its ratings are lost; its games stay.",
    accountDeleted: "The account was deleted.", rated: "Rated",
    ratedGame: "Rated (both players signed in)",
    ratedSignIn: "This is a rated game: sign in (top right) to take your seat, then open the link again.",
    ratingChange: "{name}: {before} → {after} ({change})",
    ratingWaiting: "The ratings change when the game ends.",
    notCountedPair: "Not counted: rated games between the same two players count once a day.",
    notCountedShort: "Not counted: a rated game counts once both players have moved twice.",
    notCountedNetwork: "Not counted: the two accounts play from the same network.",
    notCountedNew: "Against new accounts a rating moves in at most two games a day.",
    notRated: "Not rated: both seats need a signed-in player.", provisional: "provisional",
    ratingsTitle: "Ratings", record: "Won {w} · Lost {l} · Drawn {d}", recentGames: "Recent games",
    leaderboard: "Leaderboard", noPlayersYet: "No established ratings yet.", newcomers: "Provisional (fewer games):",
    playerNotFound: "There is no such player.", vsOpponent: "vs {name}", anonymous: "vs an anonymous player",
    memberSince: "Playing since {date}", noRatedGames: "No rated games yet.", won: "Won", lost: "Lost",
  },
  "zh-Hans": {
    signIn: "登录", signUp: "注册", signOut: "退出登录", accountName: "用户名",
    accountPassword: "密码", myProfile: "我的主页", changePassword: "修改密码",
    currentPassword: "当前密码", newPassword: "新密码",
    passwordChanged: "密码已修改，其他设备已退出登录。",
    deleteAccount: "删除账号", deleteConfirm: "删除账号 {name}？等级分将丢失，对局会保留。",
    accountDeleted: "账号已删除。", rated: "计分", ratedGame: "计分对局（双方均需登录）",
    ratedSignIn: "这是计分对局：请先登录（右上角），再打开链接入座。",
    ratingChange: "{name}：{before} → {after}（{change}）",
    ratingWaiting: "对局结束后更新等级分。",
    notCountedPair: "不计分：同两位棋手之间的计分对局每天只计一局。",
    notCountedShort: "不计分：双方各走满两步，计分对局才计分。",
    notCountedNetwork: "不计分：两个账号来自同一网络。",
    notCountedNew: "与新账号的对局，每天最多两局计入等级分。",
    notRated: "不计分：双方都须登录。", provisional: "暂定",
    ratingsTitle: "等级分", record: "胜 {w} · 负 {l} · 和 {d}", recentGames: "最近对局",
    leaderboard: "排行榜", noPlayersYet: "还没有稳定的等级分。", newcomers: "暂定等级分（对局尚少）：", playerNotFound: "没有这位棋手。",
    vsOpponent: "对 {name}", anonymous: "对匿名棋手", memberSince: "注册于 {date}",
    noRatedGames: "还没有计分对局。", won: "胜", lost: "负",
  },
  "zh-Hant": {
    signIn: "登入", signUp: "註冊", signOut: "登出", accountName: "使用者名稱",
    accountPassword: "密碼", myProfile: "我的主頁", changePassword: "修改密碼",
    currentPassword: "目前密碼", newPassword: "新密碼",
    passwordChanged: "密碼已修改，其他裝置已登出。",
    deleteAccount: "刪除帳號", deleteConfirm: "刪除帳號 {name}？等級分將遺失，對局會保留。",
    accountDeleted: "帳號已刪除。", rated: "計分", ratedGame: "計分對局（雙方均需登入）",
    ratedSignIn: "這是計分對局：請先登入（右上角），再打開連結入座。",
    ratingChange: "{name}：{before} → {after}（{change}）",
    ratingWaiting: "對局結束後更新等級分。",
    notCountedPair: "不計分：同兩位棋手之間的計分對局每天只計一局。",
    notCountedShort: "不計分：雙方各走滿兩步，計分對局才計分。",
    notCountedNetwork: "不計分：兩個帳號來自同一網路。",
    notCountedNew: "與新帳號的對局，每天最多兩局計入等級分。",
    notRated: "不計分：雙方都須登入。", provisional: "暫定",
    ratingsTitle: "等級分", record: "勝 {w} · 負 {l} · 和 {d}", recentGames: "最近對局",
    leaderboard: "排行榜", noPlayersYet: "還沒有穩定的等級分。", newcomers: "暫定等級分（對局尚少）：", playerNotFound: "沒有這位棋手。",
    vsOpponent: "對 {name}", anonymous: "對匿名棋手", memberSince: "註冊於 {date}",
    noRatedGames: "還沒有計分對局。", won: "勝", lost: "負",
  },
  ko: {
    signIn: "로그인", signUp: "가입", signOut: "로그아웃", accountName: "이름",
    accountPassword: "비밀번호", myProfile: "내 프로필", changePassword: "비밀번호 변경",
    currentPassword: "현재 비밀번호", newPassword: "새 비밀번호",
    passwordChanged: "비밀번호를 바꿨습니다. 다른 기기에서는 로그아웃되었습니다.",
    deleteAccount: "계정 삭제", deleteConfirm: "{name} 계정을 삭제할까요? 레이팅은 사라지고 대국은 남습니다.",
    accountDeleted: "계정을 삭제했습니다.", rated: "레이팅", ratedGame: "레이팅 대국 (두 사람 모두 로그인)",
    ratedSignIn: "레이팅 대국입니다: 오른쪽 위에서 로그인한 뒤 링크를 다시 여세요.",
    ratingChange: "{name}: {before} → {after} ({change})",
    ratingWaiting: "대국이 끝나면 레이팅이 바뀝니다.",
    notCountedPair: "반영 안 됨: 같은 두 사람의 레이팅 대국은 하루에 한 판만 반영됩니다.",
    notCountedShort: "반영 안 됨: 두 사람이 각각 두 수 이상 두어야 레이팅에 반영됩니다.",
    notCountedNetwork: "반영 안 됨: 두 계정이 같은 네트워크에서 접속했습니다.",
    notCountedNew: "새 계정과의 대국은 하루에 두 판까지만 레이팅에 반영됩니다.",
    notRated: "반영 안 됨: 두 자리 모두 로그인한 플레이어여야 합니다.", provisional: "잠정",
    ratingsTitle: "레이팅", record: "{w}승 · {l}패 · {d}무", recentGames: "최근 대국",
    leaderboard: "순위표", noPlayersYet: "아직 확정된 레이팅이 없습니다.", newcomers: "임시 레이팅 (대국 수 적음):",
    playerNotFound: "그런 플레이어가 없습니다.", vsOpponent: "상대 {name}", anonymous: "익명 상대",
    memberSince: "{date} 가입", noRatedGames: "아직 레이팅 대국이 없습니다.", won: "승", lost: "패",
  },
};
for (const [code, table] of Object.entries(ACCOUNT_STRINGS)) Object.assign(STRINGS[code], table);

// The game's chat, a player who left, and declined offers: merged into STRINGS.
const CHAT_AND_PRESENCE_STRINGS = {
  en: {
    chatPlayers: "Chat", chatSpectators: "Spectators' room",
    chatHideSpectators: "Hide spectators' chat", chatPlaceholder: "Say something…",
    chatSend: "Send", chatMute: "Mute", chatMuteTitle: "Hide {name}'s messages",
    chatUnmute: "Unmute", chatMutedName: "{name} is muted",
    chatTooLong: "A message may have at most 300 characters.",
    chatFlood: "You are sending messages too fast: wait a moment.",
    opponentLeft: "Your opponent left the game.", claimIn: "You can claim the game in {n} s.",
    claimNow: "You can claim victory or call it a draw.", claimWin: "Claim victory",
    claimDraw: "Call it a draw", untimedWait: "This game is untimed: it waits for them.",
    drawDeclined: "Your draw offer was declined.",
    takebackDeclined: "Your takeback request was declined.",
    term_abandonment: "Opponent left",
    abort: "Abort", term_aborted: "Game aborted", firstMoveIn: "{side} has {n} s to make a first move.",
    firstMoveLate: "{side} did not make a first move in time: you may abort the game.",
  },
  "zh-Hans": {
    chatPlayers: "聊天", chatSpectators: "观众席", chatHideSpectators: "隐藏观众聊天",
    chatPlaceholder: "说点什么…", chatSend: "发送", chatMute: "屏蔽",
    chatMuteTitle: "隐藏 {name} 的消息", chatUnmute: "取消屏蔽", chatMutedName: "已屏蔽 {name}",
    chatTooLong: "每条消息最多 300 个字符。", chatFlood: "发送太快了，请稍等。",
    opponentLeft: "对手已离开对局。", claimIn: "{n} 秒后可以判定对局。",
    claimNow: "你可以判自己获胜或判和。", claimWin: "判我获胜", claimDraw: "判为和棋",
    untimedWait: "本局不计时，只能等待对手回来。", drawDeclined: "对手拒绝了你的提和。",
    takebackDeclined: "对手拒绝了你的悔棋请求。", term_abandonment: "对手离开",
    abort: "中止对局", term_aborted: "对局已中止", firstMoveIn: "{side}还有 {n} 秒走第一步。",
    firstMoveLate: "{side}没有按时走第一步：你可以中止对局。",
  },
  "zh-Hant": {
    chatPlayers: "聊天", chatSpectators: "觀眾席", chatHideSpectators: "隱藏觀眾聊天",
    chatPlaceholder: "說點什麼…", chatSend: "傳送", chatMute: "屏蔽",
    chatMuteTitle: "隱藏 {name} 的訊息", chatUnmute: "取消屏蔽", chatMutedName: "已屏蔽 {name}",
    chatTooLong: "每則訊息最多 300 個字元。", chatFlood: "傳送太快了，請稍候。",
    opponentLeft: "對手已離開對局。", claimIn: "{n} 秒後可以判定對局。",
    claimNow: "你可以判自己獲勝或判和。", claimWin: "判我獲勝", claimDraw: "判為和棋",
    untimedWait: "本局不計時，只能等待對手回來。", drawDeclined: "對手拒絕了你的提和。",
    takebackDeclined: "對手拒絕了你的悔棋請求。", term_abandonment: "對手離開",
    abort: "中止對局", term_aborted: "對局已中止", firstMoveIn: "{side}還有 {n} 秒走第一步。",
    firstMoveLate: "{side}沒有按時走第一步：你可以中止對局。",
  },
  ko: {
    chatPlayers: "채팅", chatSpectators: "관전자 채팅", chatHideSpectators: "관전자 채팅 숨기기",
    chatPlaceholder: "메시지 입력…", chatSend: "보내기", chatMute: "차단",
    chatMuteTitle: "{name}의 메시지 숨기기", chatUnmute: "차단 해제", chatMutedName: "{name} 차단됨",
    chatTooLong: "메시지는 300자까지 보낼 수 있습니다.",
    chatFlood: "메시지를 너무 빨리 보내고 있습니다. 잠시 기다리세요.",
    opponentLeft: "상대가 대국을 떠났습니다.", claimIn: "{n}초 뒤에 대국을 끝낼 수 있습니다.",
    claimNow: "승리나 무승부를 선언할 수 있습니다.", claimWin: "승리 선언", claimDraw: "무승부 선언",
    untimedWait: "시간 제한이 없는 대국이라 상대를 기다립니다.",
    drawDeclined: "상대가 무승부 제안을 거절했습니다.",
    takebackDeclined: "상대가 무르기 요청을 거절했습니다.", term_abandonment: "상대 이탈",
    abort: "대국 취소", term_aborted: "대국 취소됨", firstMoveIn: "{side}은(는) 첫 수를 두기까지 {n}초 남았습니다.",
    firstMoveLate: "{side}이(가) 제때 첫 수를 두지 않았습니다. 대국을 취소할 수 있습니다.",
  },
};
for (const [code, table] of Object.entries(CHAT_AND_PRESENCE_STRINGS)) Object.assign(STRINGS[code], table);

// Issue 14's fixes: an analysis with nothing to analyse, a record without a result, a pass
// that ends the game, the janggi setup pictures: merged into STRINGS.
const POLISH_STRINGS = {
  en: {
    nothingToAnalyse: "Nothing to analyse: {reason}",
    noAnalysisLines: "The engine has no line to show for this position.",
    noResult: "No result", term_imported: "From a record",
    term_double_pass: "two passes in a row", term_bikjang: "bikjang accepted by a pass",
    passEndsConfirm: "If you pass now, the game ends ({how}): {verdict}, {score}. Pass?",
    passBackConfirm: "If you pass now, your opponent can end the game by passing back ({how}): {verdict}, {score}. Pass?",
    setupHorse: "horse", setupElephant: "elephant",
  },
  "zh-Hans": {
    nothingToAnalyse: "无可分析：{reason}", noAnalysisLines: "引擎对此局面没有可显示的着法。",
    noResult: "无结果", term_imported: "导入的棋谱",
    passEndsConfirm: "现在停着，对局即结束（{how}）：{verdict}，{score}。确定停着？",
    passBackConfirm: "现在停着，对手也停着即可结束对局（{how}）：{verdict}，{score}。确定停着？",
    setupHorse: "马", setupElephant: "象",
  },
  "zh-Hant": {
    nothingToAnalyse: "無可分析：{reason}", noAnalysisLines: "引擎對此局面沒有可顯示的著法。",
    noResult: "無結果", term_imported: "匯入的棋譜",
    passEndsConfirm: "現在停著，對局即結束（{how}）：{verdict}，{score}。確定停著？",
    passBackConfirm: "現在停著，對手也停著即可結束對局（{how}）：{verdict}，{score}。確定停著？",
    setupHorse: "馬", setupElephant: "象",
  },
  ko: {
    nothingToAnalyse: "분석할 것이 없습니다: {reason}",
    noAnalysisLines: "이 국면에서 엔진이 보여 줄 수순이 없습니다.",
    noResult: "결과 없음", term_imported: "기보에서 가져옴",
    passEndsConfirm: "지금 한수쉼하면 대국이 끝납니다 ({how}): {verdict}, {score}. 한수쉼할까요?",
    passBackConfirm: "지금 한수쉼하면 상대가 한수쉼으로 받아 대국을 끝낼 수 있습니다 ({how}): {verdict}, {score}. 한수쉼할까요?",
    setupHorse: "마", setupElephant: "상",
  },
};
for (const [code, table] of Object.entries(POLISH_STRINGS)) Object.assign(STRINGS[code], table);
// The lobby (lobby.js), kept in a block of its own.
const LOBBY_STRINGS = {
  en: {
    lobbyTitle: "Lobby", quickPair: "Quick game", postSeek: "Post a seek", openSeeks: "Open seeks",
    noSeeks: "No open seeks. Post one, or press a quick game button.",
    ratingRange: "Opponent's rating", ratingFrom: "from", ratingTo: "to",
    ratingRangeShown: "rating {low}–{high}", casual: "Casual", untimed: "Untimed",
    challengeName: "Player's name", challenge: "Challenge",
    challengeFrom: "{name} challenges you:", challengeTo: "Your challenge to {name}:",
    declinedBy: "{name} declined your challenge.", lobbyOffline: "The lobby is reconnecting…",
    challengeUntil: "waits until {date}", challengeExpired: "Your challenge to {name} expired unanswered.",
    challengePlayer: "Challenge {name}",
  },
  "zh-Hans": {
    lobbyTitle: "大厅", quickPair: "快速对局", postSeek: "发布约战", openSeeks: "等待中的约战",
    noSeeks: "暂无约战。发布一个，或点击快速对局。",
    ratingRange: "对手等级分", ratingFrom: "从", ratingTo: "到",
    ratingRangeShown: "等级分 {low}–{high}", casual: "不计分", untimed: "不计时",
    challengeName: "棋手名", challenge: "挑战",
    challengeFrom: "{name} 向你挑战：", challengeTo: "你向 {name} 的挑战：",
    declinedBy: "{name} 拒绝了你的挑战。", lobbyOffline: "大厅正在重新连接…",
    challengeUntil: "等待至 {date}", challengeExpired: "你向 {name} 的挑战无人应答，已过期。",
    challengePlayer: "挑战 {name}",
  },
  "zh-Hant": {
    lobbyTitle: "大廳", quickPair: "快速對局", postSeek: "發布約戰", openSeeks: "等待中的約戰",
    noSeeks: "暫無約戰。發布一個，或點擊快速對局。",
    ratingRange: "對手等級分", ratingFrom: "從", ratingTo: "到",
    ratingRangeShown: "等級分 {low}–{high}", casual: "不計分", untimed: "不計時",
    challengeName: "棋手名稱", challenge: "挑戰",
    challengeFrom: "{name} 向你挑戰：", challengeTo: "你向 {name} 的挑戰：",
    declinedBy: "{name} 拒絕了你的挑戰。", lobbyOffline: "大廳正在重新連線…",
    challengeUntil: "等待至 {date}", challengeExpired: "你向 {name} 的挑戰無人回應，已過期。",
    challengePlayer: "挑戰 {name}",
  },
  ko: {
    lobbyTitle: "대기실", quickPair: "빠른 대국", postSeek: "대국 신청 올리기", openSeeks: "열린 대국 신청",
    noSeeks: "열린 대국 신청이 없습니다. 하나 올리거나 빠른 대국 버튼을 누르세요.",
    ratingRange: "상대 레이팅", ratingFrom: "최소", ratingTo: "최대",
    ratingRangeShown: "레이팅 {low}–{high}", casual: "친선", untimed: "시간 제한 없음",
    challengeName: "플레이어 이름", challenge: "도전",
    challengeFrom: "{name} 님의 도전:", challengeTo: "{name} 님에게 보낸 도전:",
    declinedBy: "{name} 님이 도전을 거절했습니다.", lobbyOffline: "대기실에 다시 연결하는 중…",
    challengeUntil: "{date}까지 기다림", challengeExpired: "{name} 님에게 보낸 도전이 응답 없이 만료되었습니다.",
    challengePlayer: "{name} 님에게 도전",
  },
};
for (const [code, table] of Object.entries(LOBBY_STRINGS)) Object.assign(STRINGS[code], table);

// The games to watch and who is in the lobby (lobby.js), merged into STRINGS.
const WATCH_STRINGS = {
  en: {
    watchTitle: "Games to watch", watchNone: "No game is being played right now.",
    online: "{n} in the lobby", onlineNamed: "{n} in the lobby: {names}",
  },
  "zh-Hans": {
    watchTitle: "正在进行的对局", watchNone: "现在没有正在进行的对局。",
    online: "大厅里有 {n} 人", onlineNamed: "大厅里有 {n} 人：{names}",
  },
  "zh-Hant": {
    watchTitle: "正在進行的對局", watchNone: "現在沒有正在進行的對局。",
    online: "大廳裡有 {n} 人", onlineNamed: "大廳裡有 {n} 人：{names}",
  },
  ko: {
    watchTitle: "관전할 대국", watchNone: "지금 진행 중인 대국이 없습니다.",
    online: "로비에 {n}명", onlineNamed: "로비에 {n}명: {names}",
  },
};
for (const [code, table] of Object.entries(WATCH_STRINGS)) Object.assign(STRINGS[code], table);

// Correspondence games (days per move) and "your games" (home.js, lobby.js, clocks.js,
// your-games.js), merged into STRINGS.
const CORRESPONDENCE_STRINGS = {
  en: {
    corrWait: "A correspondence game: your opponent may be away; they lose on time if their days run out.",
    tcCorrespondence: "Correspondence (days per move)", daysPerMove: "Days per move",
    corrOption: "Correspondence: {n} days per move", corrOptionOne: "Correspondence: 1 day per move",
    corrDays: "{n} d per move", corrDue: "{left} left (move by {date})",
    daysHoursLeft: "{d} d {h} h", hoursMinutesLeft: "{h} h {m} min", timeLeft: "{left} left",
    yourGames: "Your games", yourGamesLink: "Your games (signed in, on any device)",
    yourGamesNone: "No game in progress.", yourGamesSignIn: "Sign in to see your games.",
    "xiangqi-correspondence": "Xiangqi (correspondence)", "janggi-correspondence": "Janggi (correspondence)",
    vacationTitle: "Vacation", vacationDays: "Days",
    vacationLeft: "{left} of {allowance} vacation days left in {year}. While on vacation your correspondence clocks do not run.",
    vacationUntil: "You are on vacation until {date}.", vacationTake: "Take a vacation",
    vacationEnd: "End the vacation now", opponentVacation: "{name} is on vacation until {date}",
  },
  "zh-Hans": {
    corrWait: "通讯对局：对手可以离开；若用完每步的天数则超时判负。",
    tcCorrespondence: "通讯对局（每步若干天）", daysPerMove: "每步天数",
    corrOption: "通讯对局：每步 {n} 天", corrOptionOne: "通讯对局：每步 1 天",
    corrDays: "每步 {n} 天", corrDue: "还剩 {left}（请在 {date} 前走棋）",
    daysHoursLeft: "{d} 天 {h} 小时", hoursMinutesLeft: "{h} 小时 {m} 分", timeLeft: "还剩 {left}",
    yourGames: "我的对局", yourGamesLink: "我的对局（登录后，任何设备）",
    yourGamesNone: "没有进行中的对局。", yourGamesSignIn: "登录后查看你的对局。",
    "xiangqi-correspondence": "象棋（通讯）", "janggi-correspondence": "韩国象棋（通讯）",
    vacationTitle: "休假", vacationDays: "天数",
    vacationLeft: "{year} 年的 {allowance} 天休假还剩 {left} 天。休假期间你的通讯对局不计时。",
    vacationUntil: "你正在休假，至 {date}。", vacationTake: "开始休假",
    vacationEnd: "现在结束休假", opponentVacation: "{name} 正在休假，至 {date}",
  },
  "zh-Hant": {
    corrWait: "通訊對局：對手可以離開；若用完每步的天數則超時判負。",
    tcCorrespondence: "通訊對局（每步若干天）", daysPerMove: "每步天數",
    corrOption: "通訊對局：每步 {n} 天", corrOptionOne: "通訊對局：每步 1 天",
    corrDays: "每步 {n} 天", corrDue: "還剩 {left}（請在 {date} 前走棋）",
    daysHoursLeft: "{d} 天 {h} 小時", hoursMinutesLeft: "{h} 小時 {m} 分", timeLeft: "還剩 {left}",
    yourGames: "我的對局", yourGamesLink: "我的對局（登入後，任何裝置）",
    yourGamesNone: "沒有進行中的對局。", yourGamesSignIn: "登入後查看你的對局。",
    "xiangqi-correspondence": "象棋（通訊）", "janggi-correspondence": "韓國象棋（通訊）",
    vacationTitle: "休假", vacationDays: "天數",
    vacationLeft: "{year} 年的 {allowance} 天休假還剩 {left} 天。休假期間你的通訊對局不計時。",
    vacationUntil: "你正在休假，至 {date}。", vacationTake: "開始休假",
    vacationEnd: "現在結束休假", opponentVacation: "{name} 正在休假，至 {date}",
  },
  ko: {
    corrWait: "통신 대국: 상대가 자리를 비울 수 있습니다. 정해진 일수를 넘기면 시간패입니다.",
    tcCorrespondence: "통신 대국 (수당 며칠)", daysPerMove: "수당 일수",
    corrOption: "통신 대국: 수당 {n}일", corrOptionOne: "통신 대국: 수당 1일",
    corrDays: "수당 {n}일", corrDue: "{left} 남음 ({date}까지 두세요)",
    daysHoursLeft: "{d}일 {h}시간", hoursMinutesLeft: "{h}시간 {m}분", timeLeft: "{left} 남음",
    yourGames: "내 대국", yourGamesLink: "내 대국 (로그인, 모든 기기)",
    yourGamesNone: "진행 중인 대국이 없습니다.", yourGamesSignIn: "로그인하면 내 대국을 볼 수 있습니다.",
    "xiangqi-correspondence": "샹치 (통신)", "janggi-correspondence": "장기 (통신)",
    vacationTitle: "휴가", vacationDays: "일수",
    vacationLeft: "{year}년 휴가 {allowance}일 중 {left}일 남음. 휴가 중에는 통신 대국 시간이 흐르지 않습니다.",
    vacationUntil: "{date}까지 휴가 중입니다.", vacationTake: "휴가 시작",
    vacationEnd: "지금 휴가 끝내기", opponentVacation: "{name} 님은 {date}까지 휴가 중",
  },
};
for (const [code, table] of Object.entries(CORRESPONDENCE_STRINGS)) Object.assign(STRINGS[code], table);

// E-mail notices in the account menu (account.js).
const NOTICE_STRINGS = {
  en: {
    mailNotices: "Notices by e-mail", mailAddress: "E-mail address",
    mailDigest: "Mail me a digest when it is my move and I am away",
    saveNotices: "Save", noticesSaved: "Notice settings saved.",
    mailUnconfirmed: "Not confirmed yet: open the link in the mail sent to this address.",
    pushNotices: "Push messages", pushOff: "Push messages are off.",
    pushIsOn: "Push messages are on ({count} browsers).",
    pushOn: "Send push messages to this browser", pushStop: "Stop push messages",
    pushUnsupported: "This browser cannot take push messages here.",
    pushDenied: "Notifications are blocked for this site: allow them in the browser to be pushed.",
    pushFailed: "This browser could not subscribe to push messages ({reason}). The e-mail digest still works; try again later.",
  },
  "zh-Hans": {
    mailNotices: "电子邮件通知", mailAddress: "电子邮件地址",
    mailDigest: "轮到我走棋而我不在时，给我发一封汇总邮件",
    saveNotices: "保存", noticesSaved: "通知设置已保存。",
    mailUnconfirmed: "尚未确认：请打开发到这个地址的邮件中的链接。",
    pushNotices: "推送消息", pushOff: "推送消息已关闭。",
    pushIsOn: "推送消息已开启（{count} 个浏览器）。",
    pushOn: "向这个浏览器发送推送消息", pushStop: "停止推送消息",
    pushUnsupported: "这个浏览器无法在此接收推送消息。",
    pushDenied: "这个网站的通知已被阻止：请在浏览器中允许通知后再开启推送。",
    pushFailed: "这个浏览器无法订阅推送消息（{reason}）。电子邮件汇总仍然有效；请稍后再试。",
  },
  "zh-Hant": {
    mailNotices: "電子郵件通知", mailAddress: "電子郵件地址",
    mailDigest: "輪到我走棋而我不在時，寄一封彙總郵件給我",
    saveNotices: "儲存", noticesSaved: "通知設定已儲存。",
    mailUnconfirmed: "尚未確認：請開啟寄到這個地址的郵件中的連結。",
    pushNotices: "推播訊息", pushOff: "推播訊息已關閉。",
    pushIsOn: "推播訊息已開啟（{count} 個瀏覽器）。",
    pushOn: "向這個瀏覽器傳送推播訊息", pushStop: "停止推播訊息",
    pushUnsupported: "這個瀏覽器無法在此接收推播訊息。",
    pushDenied: "這個網站的通知已被封鎖：請在瀏覽器中允許通知後再開啟推播。",
    pushFailed: "這個瀏覽器無法訂閱推播訊息（{reason}）。電子郵件彙總仍然有效；請稍後再試。",
  },
  ko: {
    mailNotices: "이메일 알림", mailAddress: "이메일 주소",
    mailDigest: "내 차례인데 자리에 없으면 요약 메일 보내기",
    saveNotices: "저장", noticesSaved: "알림 설정을 저장했습니다.",
    mailUnconfirmed: "아직 확인되지 않았습니다. 이 주소로 보낸 메일의 링크를 여세요.",
    pushNotices: "푸시 메시지", pushOff: "푸시 메시지가 꺼져 있습니다.",
    pushIsOn: "푸시 메시지가 켜져 있습니다(브라우저 {count}개).",
    pushOn: "이 브라우저로 푸시 메시지 보내기", pushStop: "푸시 메시지 끄기",
    pushUnsupported: "이 브라우저에서는 푸시 메시지를 받을 수 없습니다.",
    pushDenied: "이 사이트의 알림이 차단되어 있습니다. 브라우저에서 알림을 허용해 주세요.",
    pushFailed: "이 브라우저에서 푸시 메시지를 구독하지 못했습니다({reason}). 이메일 요약은 계속 받을 수 있습니다. 나중에 다시 시도해 주세요.",
  },
};
for (const [code, table] of Object.entries(NOTICE_STRINGS)) Object.assign(STRINGS[code], table);

// The board's settings (themes, piece sets, animation) and premoves (board.js).
const BOARD_STRINGS = {
  en: {
    themeFor: "Board and pieces for", boardTheme: "Board", pieceSet: "Pieces",
    boardWood: "Wood", boardPaper: "Paper", boardDark: "Dark",
    piecesChinese: "Chinese characters", piecesLetters: "Letters", piecesPictures: "Pictures",
    animation: "Animate moves",
    premoveDropped: "Your premove {move} was not played: it is not legal after the opponent's move.",
  },
  "zh-Hans": {
    themeFor: "棋盘和棋子用于", boardTheme: "棋盘", pieceSet: "棋子",
    boardWood: "木纹", boardPaper: "纸面", boardDark: "深色",
    piecesChinese: "汉字", piecesLetters: "字母", piecesPictures: "图画",
    animation: "走子动画",
    premoveDropped: "预走 {move} 未走出：对方走棋后它已不合法。",
  },
  "zh-Hant": {
    themeFor: "棋盤和棋子用於", boardTheme: "棋盤", pieceSet: "棋子",
    boardWood: "木紋", boardPaper: "紙面", boardDark: "深色",
    piecesChinese: "漢字", piecesLetters: "字母", piecesPictures: "圖畫",
    animation: "走子動畫",
    premoveDropped: "預走 {move} 未走出：對方走棋後它已不合法。",
  },
  ko: {
    themeFor: "판과 기물 적용 대상", boardTheme: "판", pieceSet: "기물",
    boardWood: "나무", boardPaper: "한지", boardDark: "어두운 판",
    piecesChinese: "한자", piecesLetters: "알파벳", piecesPictures: "그림",
    animation: "기물 이동 애니메이션",
    premoveDropped: "미리 둔 수 {move}는 두어지지 않았습니다: 상대의 수 뒤에는 둘 수 없는 수입니다.",
  },
};
for (const [code, table] of Object.entries(BOARD_STRINGS)) Object.assign(STRINGS[code], table);
// The analysis board and the game review (analysis.js, move-tree.js, review.js).
const ANALYSIS_STRINGS = {
  en: {
    analysisBoard: "Analysis board", openAnalysisBoard: "Analysis board", engineOn: "Engine",
    engineLines: "Lines", engineOff: "The engine is off (L turns it on).",
    engineDone: "done", promoteVariation: "Promote variation", makeMainLine: "Make main line",
    deleteFromHere: "Delete from here", gameReview: "Game review", reviewStart: "Review the game",
    loadPosition: "Load", reviewGraph: "The evaluation after each move",
    inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder",
    inaccuracyPlural: "Inaccuracies", mistakePlural: "Mistakes", blunderPlural: "Blunders",
    averageLoss: "Average loss", reviewing: "Reviewing… {n} / {total} positions",
    reviewDone: "Review complete.", bestWas: "best was {move}", intoMate: "walks into a mate in {n}",
    thinkLonger: "Think longer",
    notDeeper_mate: "no deeper: the mate is proved", notDeeper_only_move: "no deeper: one legal move",
    notDeeper_depth_cap: "no deeper: the deepest search", notDeeper_over: "no deeper: the game is over",
    notDeeper_hash_full: "no deeper: the hash table is full", notDeeper_time: "no deeper in the time allowed",
    analysis_bad_fen: "The FEN cannot be read.", analysis_illegal_move: "A move of the line is not legal.",
    analysis_bad_move: "A move of the line is not written like 'h2e2'.", analysis_too_many_moves: "The line is too long (600 moves at most).",
    analysis_bad_variant: "Unknown game or rule set.",
    analysisGameInProgress: "This game is still being played: it can be analysed once it is over.",
  },
  "zh-Hans": {
    analysisBoard: "分析棋盘", openAnalysisBoard: "分析棋盘", engineOn: "引擎",
    engineLines: "变例数", engineOff: "引擎已关闭（按 L 打开）。",
    engineDone: "完成", promoteVariation: "提升变例", makeMainLine: "设为主线",
    deleteFromHere: "从此处删除", gameReview: "对局复盘", reviewStart: "复盘全局",
    loadPosition: "载入", reviewGraph: "每步之后的局面评估",
    inaccuracy: "欠佳", mistake: "错着", blunder: "败着",
    inaccuracyPlural: "欠佳", mistakePlural: "错着", blunderPlural: "败着",
    averageLoss: "平均损失", reviewing: "复盘中…… {n} / {total} 个局面",
    reviewDone: "复盘完成。", bestWas: "最佳着法为 {move}", intoMate: "走入{n}步杀",
    thinkLonger: "继续思考",
    analysis_bad_fen: "无法读取该 FEN。", analysis_illegal_move: "该着法序列中有不合规则的着法。",
    analysis_bad_move: "该着法序列中有着法不是 'h2e2' 的格式。", analysis_too_many_moves: "着法序列太长（最多 600 步）。",
    analysis_bad_variant: "未知的棋种或规则。",
    analysisGameInProgress: "这盘棋仍在进行中：结束后才能分析。",
  },
  "zh-Hant": {
    analysisBoard: "分析棋盤", openAnalysisBoard: "分析棋盤", engineOn: "引擎",
    engineLines: "變例數", engineOff: "引擎已關閉（按 L 開啟）。",
    engineDone: "完成", promoteVariation: "提升變例", makeMainLine: "設為主線",
    deleteFromHere: "從此處刪除", gameReview: "對局復盤", reviewStart: "復盤全局",
    loadPosition: "載入", reviewGraph: "每步之後的局面評估",
    inaccuracy: "欠佳", mistake: "錯著", blunder: "敗著",
    inaccuracyPlural: "欠佳", mistakePlural: "錯著", blunderPlural: "敗著",
    averageLoss: "平均損失", reviewing: "復盤中…… {n} / {total} 個局面",
    reviewDone: "復盤完成。", bestWas: "最佳著法為 {move}", intoMate: "走入{n}步殺",
    thinkLonger: "繼續思考",
    analysis_bad_fen: "無法讀取該 FEN。", analysis_illegal_move: "該著法序列中有不合規則的著法。",
    analysis_bad_move: "該著法序列中有著法不是 'h2e2' 的格式。", analysis_too_many_moves: "著法序列太長（最多 600 步）。",
    analysis_bad_variant: "未知的棋種或規則。",
    analysisGameInProgress: "這盤棋仍在進行中：結束後才能分析。",
  },
  ko: {
    analysisBoard: "분석판", openAnalysisBoard: "분석판", engineOn: "엔진",
    engineLines: "수순 수", engineOff: "엔진이 꺼져 있습니다 (L 키로 켭니다).",
    engineDone: "완료", promoteVariation: "변화 올리기", makeMainLine: "본수순으로",
    deleteFromHere: "여기부터 삭제", gameReview: "대국 복기", reviewStart: "대국 복기하기",
    loadPosition: "불러오기", reviewGraph: "수마다의 형세 평가",
    inaccuracy: "부정확", mistake: "실수", blunder: "악수",
    inaccuracyPlural: "부정확", mistakePlural: "실수", blunderPlural: "악수",
    averageLoss: "평균 손실", reviewing: "복기 중… {n} / {total} 국면",
    reviewDone: "복기가 끝났습니다.", bestWas: "최선수는 {move}", intoMate: "{n}수 외통에 걸림",
    thinkLonger: "더 생각하기",
    analysis_bad_fen: "FEN을 읽을 수 없습니다.", analysis_illegal_move: "수순에 규칙에 맞지 않는 수가 있습니다.",
    analysis_bad_move: "수순에 'h2e2' 형식이 아닌 수가 있습니다.", analysis_too_many_moves: "수순이 너무 깁니다 (최대 600수).",
    analysis_bad_variant: "알 수 없는 게임 또는 규칙입니다.",
    analysisGameInProgress: "아직 진행 중인 대국입니다. 끝난 뒤에 분석할 수 있습니다.",
  },
};
for (const [code, table] of Object.entries(ANALYSIS_STRINGS)) Object.assign(STRINGS[code], table);

// The puzzles (puzzles.js) and the home page's one-click starts (home.js).
const PUZZLE_STRINGS = {
  en: {
    playComputer: "Play the computer", inviteFriend: "Invite a friend", bothSidesHere: "Both sides here",
    customGame: "Custom game (time control, rules, position, rated)", puzzles: "Puzzles",
    dailyPuzzle: "Daily puzzle", puzzleTitle: "{game} puzzle", puzzleTask: "{side} to move: mate in {n}",
    puzzleYourTurn: "Your move: find the winning move.", puzzleChecking: "Checking your move…",
    puzzleRight: "Right!", puzzleRightGoOn: "Right! Keep going.", puzzleSolved: "Solved! The streak grows.",
    puzzleSolvedWithHint: "Solved, with a hint: the streak stays as it was.",
    puzzleSolvedAfterFailing: "Solved, on a second try: the streak starts again from the next one.",
    puzzleWrong: "That move does not win: the streak ends. Here is the solution.",
    puzzleGaveUp: "The solution: the streak ends.", puzzleSolution: "Solution: {moves}",
    hint: "Hint", hintPiece: "Hint: move this piece.", hintMove: "Hint: play the move the arrow shows.",
    showSolution: "Show the solution", tryAgain: "Try again", nextPuzzle: "Next puzzle",
    streak: "Streak", bestStreak: "(best {n})", puzzlesSolved: "Puzzles solved in this browser: {n}",
    nextPuzzleGame: "Next puzzles from", puzzleSource: "Source: {source}",
    puzzleMined: "chuhan's own self-play, game {game}, ply {ply} (verified by a deeper search)",
  },
  "zh-Hans": {
    playComputer: "与电脑对弈", inviteFriend: "邀请朋友", bothSidesHere: "同屏双人",
    customGame: "自定义对局（计时、规则、局面、计分）", puzzles: "杀棋练习",
    dailyPuzzle: "每日一题", puzzleTitle: "{game}练习", puzzleTask: "{side}先走：{n} 步杀",
    puzzleYourTurn: "轮到你：找出制胜的一着。", puzzleChecking: "正在检查你的着法…",
    puzzleRight: "正确！", puzzleRightGoOn: "正确！继续。", puzzleSolved: "解开了！连胜加一。",
    puzzleSolvedWithHint: "借助提示解开：连胜不变。",
    puzzleSolvedAfterFailing: "第二次解开：连胜从下一题重新开始。",
    puzzleWrong: "这一着不能取胜：连胜中断。下面是答案。",
    puzzleGaveUp: "答案如下：连胜中断。", puzzleSolution: "答案：{moves}",
    hint: "提示", hintPiece: "提示：走这个棋子。", hintMove: "提示：按箭头走。",
    showSolution: "看答案", tryAgain: "再试一次", nextPuzzle: "下一题",
    streak: "连胜", bestStreak: "（最佳 {n}）", puzzlesSolved: "本浏览器已解题数：{n}",
    nextPuzzleGame: "下一题来自", puzzleSource: "出处：{source}",
    puzzleMined: "chuhan 引擎自弈，第 {game} 局第 {ply} 手（经更深的搜索验证）",
  },
  "zh-Hant": {
    playComputer: "與電腦對弈", inviteFriend: "邀請朋友", bothSidesHere: "同屏雙人",
    customGame: "自訂對局（計時、規則、局面、計分）", puzzles: "殺棋練習",
    dailyPuzzle: "每日一題", puzzleTitle: "{game}練習", puzzleTask: "{side}先走：{n} 步殺",
    puzzleYourTurn: "輪到你：找出制勝的一著。", puzzleChecking: "正在檢查你的著法…",
    puzzleRight: "正確！", puzzleRightGoOn: "正確！繼續。", puzzleSolved: "解開了！連勝加一。",
    puzzleSolvedWithHint: "藉助提示解開：連勝不變。",
    puzzleSolvedAfterFailing: "第二次解開：連勝從下一題重新開始。",
    puzzleWrong: "這一著不能取勝：連勝中斷。下面是答案。",
    puzzleGaveUp: "答案如下：連勝中斷。", puzzleSolution: "答案：{moves}",
    hint: "提示", hintPiece: "提示：走這個棋子。", hintMove: "提示：按箭頭走。",
    showSolution: "看答案", tryAgain: "再試一次", nextPuzzle: "下一題",
    streak: "連勝", bestStreak: "（最佳 {n}）", puzzlesSolved: "本瀏覽器已解題數：{n}",
    nextPuzzleGame: "下一題來自", puzzleSource: "出處：{source}",
    puzzleMined: "chuhan 引擎自弈，第 {game} 局第 {ply} 手（經更深的搜尋驗證）",
  },
  ko: {
    playComputer: "컴퓨터와 두기", inviteFriend: "친구 초대", bothSidesHere: "한 화면에서 둘이",
    customGame: "직접 설정 (시간, 규칙, 국면, 레이팅)", puzzles: "박보 문제",
    dailyPuzzle: "오늘의 문제", puzzleTitle: "{game} 문제", puzzleTask: "{side} 차례: {n}수 외통",
    puzzleYourTurn: "당신 차례: 이기는 수를 찾으세요.", puzzleChecking: "수를 확인하는 중…",
    puzzleRight: "정답!", puzzleRightGoOn: "정답! 계속하세요.", puzzleSolved: "풀었습니다! 연승이 늘었습니다.",
    puzzleSolvedWithHint: "힌트로 풀었습니다: 연승은 그대로입니다.",
    puzzleSolvedAfterFailing: "두 번째에 풀었습니다: 연승은 다음 문제부터 다시 시작합니다.",
    puzzleWrong: "이 수로는 이기지 못합니다: 연승이 끝났습니다. 정답은 이렇습니다.",
    puzzleGaveUp: "정답입니다: 연승이 끝났습니다.", puzzleSolution: "정답: {moves}",
    hint: "힌트", hintPiece: "힌트: 이 기물을 움직이세요.", hintMove: "힌트: 화살표대로 두세요.",
    showSolution: "정답 보기", tryAgain: "다시 풀기", nextPuzzle: "다음 문제",
    streak: "연승", bestStreak: "(최고 {n})", puzzlesSolved: "이 브라우저에서 푼 문제: {n}",
    nextPuzzleGame: "다음 문제의 게임", puzzleSource: "출처: {source}",
    puzzleMined: "chuhan 엔진 자체 대국 {game}번째 판 {ply}수째 (더 깊은 탐색으로 검증)",
  },
};
for (const [code, table] of Object.entries(PUZZLE_STRINGS)) Object.assign(STRINGS[code], table);

// Tournaments (tournaments.js): the home page's card and a tournament's page.
const TOURNAMENT_STRINGS = {
  en: {
    tournaments: "Tournaments", tUpcoming: "Upcoming", tRunning: "Running", tFinished: "Finished",
    tNone: "None", tCreate: "Create a tournament", tSignInToCreate: "Sign in (top right) to create a tournament.",
    tName: "Name", tFormat: "Format", tformat_round_robin: "Round robin", tformat_swiss: "Swiss",
    tformat_arena: "Arena", tStartTime: "Start time", tRoundsField: "Rounds", tCycles: "Cycles",
    tSingle: "Single round robin", tDouble: "Double round robin", tDuration: "Duration (minutes)",
    tTieBreaks: "Tie-breaks", tOrderAxf: "AXF order (Buchholz first)",
    tOrderWxf: "WXF order (Sonneborn-Berger first)", tCreateButton: "Create the tournament",
    tCode: "Entry code", tJoin: "Join", tWithdraw: "Withdraw", tDownloadTrf: "Download TRF", tDownloadPgn: "Download the games (PGN)",
    tSignInToJoin: "Sign in (top right) to join.", tYourGame: "Your game", tStandings: "Standings",
    tMinutes: "{n} min", tRounds: "{n} rounds", tCasual: "Casual", tPlayers: "{n} players", tOnePlayer: "1 player",
    tNotFound: "Tournament not found", tStarts: "Starts {when}", tstatus_created: "Not started",
    tstatus_running: "Running", tstatus_finished: "Finished", tTieBreakOrder: "Tie-breaks: {order}",
    tStart: "Start", tPairNext: "Pair the next round", tArenaGames: "Games", tArenaGamesOf: "Games ({shown} of {n}: the newest, and every game in play)", tRound: "Round {n}",
    tBoard: "Board", tResult: "Result", tBye: "Bye", tWatch: "Watch", tPoints: "Points",
    tEntrants: "Entrants ({n})", tWithdrawn: "withdrawn", tFromRound: "from round {n}",
    tChat: "Chat", tChatSignIn: "Sign in (top right) to chat.", tChatEmpty: "No one has said anything yet.",
    tNoEntrants: "No one has entered yet.",
    tPause: "Pause", tResume: "Come back", tPaused: "paused", tStartsIn: "Starts in {time}", tEndsIn: "Ends in {time}", tEnding: "Ending: the last games are being played", tBerserk: "Berserk", tComputerLevel: "Computer level", tAddComputer: "Add a computer player", tBerserkTitle: "Half your clock and no increment: a win of 7 moves or more scores a point more",
    tb_buchholz: "Buchholz", tb_sonneborn_berger: "Sonneborn-Berger", tb_direct_encounter: "Direct encounter",
    tb_won: "Games won", tb_wins_black: "Wins with Black", tb_games_black: "Games with Black",
    tb_progressive: "Progressive score", tb_tpr: "Performance",
    tHalfBye: "½-point bye", tHalfByeIn: "½-point bye in round {n}", tTakeHalfBye: "Take a ½-point bye next round",
    tCancelHalfBye: "Cancel my ½-point bye (round {n})", tHalfByes: "½-point byes a player may ask for",
    tHalfByeClosed: "None in the last rounds",
  },
  "zh-Hans": {
    tournaments: "比赛", tUpcoming: "即将开始", tRunning: "进行中", tFinished: "已结束",
    tNone: "无", tCreate: "创建比赛", tSignInToCreate: "请先登录（右上角）再创建比赛。",
    tName: "名称", tFormat: "赛制", tformat_round_robin: "循环赛", tformat_swiss: "积分编排制（瑞士制）",
    tformat_arena: "竞技场", tStartTime: "开始时间", tRoundsField: "轮数", tCycles: "循环",
    tSingle: "单循环", tDouble: "双循环", tDuration: "时长（分钟）",
    tTieBreaks: "同分比较", tOrderAxf: "亚象联顺序（对手分优先）",
    tOrderWxf: "世象联顺序（索伯分优先）", tCreateButton: "创建比赛",
    tCode: "参赛码", tJoin: "报名", tWithdraw: "退赛", tDownloadTrf: "下载 TRF", tDownloadPgn: "下载全部对局 (PGN)",
    tSignInToJoin: "请先登录（右上角）再报名。", tYourGame: "你的对局", tStandings: "排名",
    tMinutes: "{n} 分钟", tRounds: "{n} 轮", tCasual: "不计等级分", tPlayers: "{n} 名棋手", tOnePlayer: "1 名棋手",
    tNotFound: "找不到这个比赛", tStarts: "开始时间：{when}", tstatus_created: "尚未开始",
    tstatus_running: "进行中", tstatus_finished: "已结束", tTieBreakOrder: "同分比较：{order}",
    tStart: "开始", tPairNext: "编排下一轮", tArenaGames: "对局", tArenaGamesOf: "对局（共 {n} 局，显示最新的与进行中的 {shown} 局）", tRound: "第 {n} 轮",
    tBoard: "台次", tResult: "结果", tBye: "轮空", tWatch: "观战", tPoints: "积分",
    tEntrants: "参赛棋手（{n}）", tWithdrawn: "已退赛", tFromRound: "从第 {n} 轮起",
    tChat: "聊天", tChatSignIn: "登录（右上角）后即可聊天。", tChatEmpty: "还没有人发言。",
    tNoEntrants: "还没有人报名。",
    tPause: "暂停", tResume: "回来继续", tPaused: "暂停中", tStartsIn: "{time} 后开始", tEndsIn: "{time} 后结束", tEnding: "即将结束：最后几局正在进行", tComputerLevel: "电脑等级", tAddComputer: "加入电脑棋手", tBerserk: "狂暴", tBerserkTitle: "用时减半、不加秒：走满 7 步后获胜多得 1 分",
    tb_buchholz: "对手分", tb_sonneborn_berger: "索伯分", tb_direct_encounter: "直胜",
    tb_won: "胜局数", tb_wins_black: "后手胜局数", tb_games_black: "后手局数",
    tb_progressive: "累进分", tb_tpr: "等级表现分",
    tHalfBye: "½分轮空", tHalfByeIn: "第 {n} 轮½分轮空", tTakeHalfBye: "下一轮申请½分轮空",
    tCancelHalfBye: "取消我的½分轮空（第 {n} 轮）", tHalfByes: "每人可申请的½分轮空次数",
    tHalfByeClosed: "最后几轮不可申请",
  },
  "zh-Hant": {
    tournaments: "比賽", tUpcoming: "即將開始", tRunning: "進行中", tFinished: "已結束",
    tNone: "無", tCreate: "建立比賽", tSignInToCreate: "請先登入（右上角）再建立比賽。",
    tName: "名稱", tFormat: "賽制", tformat_round_robin: "循環賽", tformat_swiss: "積分編排制（瑞士制）",
    tformat_arena: "競技場", tStartTime: "開始時間", tRoundsField: "輪數", tCycles: "循環",
    tSingle: "單循環", tDouble: "雙循環", tDuration: "時長（分鐘）",
    tTieBreaks: "同分比較", tOrderAxf: "亞象聯順序（對手分優先）",
    tOrderWxf: "世象聯順序（索伯分優先）", tCreateButton: "建立比賽",
    tCode: "參賽碼", tJoin: "報名", tWithdraw: "退賽", tDownloadTrf: "下載 TRF", tDownloadPgn: "下載全部對局 (PGN)",
    tSignInToJoin: "請先登入（右上角）再報名。", tYourGame: "你的對局", tStandings: "排名",
    tMinutes: "{n} 分鐘", tRounds: "{n} 輪", tCasual: "不計等級分", tPlayers: "{n} 名棋手", tOnePlayer: "1 名棋手",
    tNotFound: "找不到這個比賽", tStarts: "開始時間：{when}", tstatus_created: "尚未開始",
    tstatus_running: "進行中", tstatus_finished: "已結束", tTieBreakOrder: "同分比較：{order}",
    tStart: "開始", tPairNext: "編排下一輪", tArenaGames: "對局", tArenaGamesOf: "對局（共 {n} 局，顯示最新的與進行中的 {shown} 局）", tRound: "第 {n} 輪",
    tBoard: "台次", tResult: "結果", tBye: "輪空", tWatch: "觀戰", tPoints: "積分",
    tEntrants: "參賽棋手（{n}）", tWithdrawn: "已退賽", tFromRound: "從第 {n} 輪起",
    tChat: "聊天", tChatSignIn: "登入（右上角）後即可聊天。", tChatEmpty: "還沒有人發言。",
    tNoEntrants: "還沒有人報名。",
    tPause: "暫停", tResume: "回來繼續", tPaused: "暫停中", tStartsIn: "{time} 後開始", tEndsIn: "{time} 後結束", tEnding: "即將結束：最後幾局正在進行", tComputerLevel: "電腦等級", tAddComputer: "加入電腦棋手", tBerserk: "狂暴", tBerserkTitle: "用時減半、不加秒：走滿 7 步後獲勝多得 1 分",
    tb_buchholz: "對手分", tb_sonneborn_berger: "索伯分", tb_direct_encounter: "直勝",
    tb_won: "勝局數", tb_wins_black: "後手勝局數", tb_games_black: "後手局數",
    tb_progressive: "累進分", tb_tpr: "等級表現分",
    tHalfBye: "½分輪空", tHalfByeIn: "第 {n} 輪½分輪空", tTakeHalfBye: "下一輪申請½分輪空",
    tCancelHalfBye: "取消我的½分輪空（第 {n} 輪）", tHalfByes: "每人可申請的½分輪空次數",
    tHalfByeClosed: "最後幾輪不可申請",
  },
  ko: {
    tournaments: "대회", tUpcoming: "예정", tRunning: "진행 중", tFinished: "종료",
    tNone: "없음", tCreate: "대회 만들기", tSignInToCreate: "대회를 만들려면 로그인하세요(오른쪽 위).",
    tName: "이름", tFormat: "방식", tformat_round_robin: "리그전", tformat_swiss: "스위스 방식",
    tformat_arena: "아레나", tStartTime: "시작 시각", tRoundsField: "라운드 수", tCycles: "순환",
    tSingle: "단일 리그", tDouble: "더블 리그", tDuration: "진행 시간(분)",
    tTieBreaks: "동점자 처리", tOrderAxf: "아시아 연맹 순서(부흐홀츠 먼저)",
    tOrderWxf: "세계 연맹 순서(소네본-베르거 먼저)", tCreateButton: "대회 만들기",
    tCode: "참가 코드", tJoin: "참가", tWithdraw: "기권(대회)", tDownloadTrf: "TRF 내려받기", tDownloadPgn: "모든 대국 내려받기 (PGN)",
    tSignInToJoin: "참가하려면 로그인하세요(오른쪽 위).", tYourGame: "내 대국", tStandings: "순위",
    tMinutes: "{n}분", tRounds: "{n}라운드", tCasual: "비레이팅", tPlayers: "{n}명", tOnePlayer: "1명",
    tNotFound: "대회를 찾을 수 없습니다", tStarts: "시작: {when}", tstatus_created: "시작 전",
    tstatus_running: "진행 중", tstatus_finished: "종료", tTieBreakOrder: "동점자 처리: {order}",
    tStart: "시작", tPairNext: "다음 라운드 대진", tArenaGames: "대국", tArenaGamesOf: "대국 (전체 {n}국 중 최근과 진행 중인 {shown}국)", tRound: "{n}라운드",
    tBoard: "판", tResult: "결과", tBye: "부전승", tWatch: "관전", tPoints: "점수",
    tEntrants: "참가자({n})", tWithdrawn: "기권", tFromRound: "{n}라운드부터",
    tChat: "채팅", tChatSignIn: "채팅하려면 로그인하세요(오른쪽 위).", tChatEmpty: "아직 아무도 말하지 않았습니다.",
    tNoEntrants: "아직 참가자가 없습니다.",
    tPause: "일시 정지", tResume: "돌아오기", tPaused: "일시 정지 중", tStartsIn: "{time} 후 시작", tEndsIn: "{time} 후 종료", tEnding: "종료 중: 마지막 대국이 진행 중입니다", tBerserk: "버서크", tComputerLevel: "컴퓨터 레벨", tAddComputer: "컴퓨터 참가자 추가", tBerserkTitle: "시간 절반, 추가 시간 없음: 7수 이상 두고 이기면 1점 더",
    tb_buchholz: "부흐홀츠", tb_sonneborn_berger: "소네본-베르거", tb_direct_encounter: "승자승",
    tb_won: "승수", tb_wins_black: "후수 승수", tb_games_black: "후수 대국 수",
    tb_progressive: "누적 점수", tb_tpr: "퍼포먼스",
    tHalfBye: "½점 휴식", tHalfByeIn: "{n}라운드 ½점 휴식", tTakeHalfBye: "다음 라운드 ½점 휴식 신청",
    tCancelHalfBye: "내 ½점 휴식 취소({n}라운드)", tHalfByes: "선수당 신청 가능한 ½점 휴식 수",
    tHalfByeClosed: "신청할 수 없는 마지막 라운드 수",
  },
};
for (const [code, table] of Object.entries(TOURNAMENT_STRINGS)) Object.assign(STRINGS[code], table);

// A tournament's printed pages (tournament-print.js) and their links on its page.
const PRINT_STRINGS = {
  en: {
    pPairings: "Pairings", pScoreSheet: "Score sheet", pStandingsAfter: "Standings after round {n}",
    pEvent: "Event", pClub: "Club", pRating: "Rating", pScore: "Score", pRank: "Rank",
    pName: "Name", pMove: "Move", pSignatures: "Signatures", pDate: "Date",
    pNoRound: "No round is paired yet.", pPrint: "Print:", pPrintPairings: "pairings",
    pPrintSheets: "score sheets", pPrintStandings: "standings", pOverTheBoard: "Over the board",
    pOverTheBoardLong: "Over the board (played on real boards: I enter the players and results)",
    pAddPlayer: "Add the player", pUnpair: "Undo the pairing", pRemove: "Remove",
    pEnter: "Enter", pCorrect: "Correct", pMoves: "Moves (optional)", pSaveMoves: "Save the moves",
    pAbsent: "Absent", pPresent: "Present again",
    pHalfBye: "½-point bye next round", pCancelHalfBye: "Cancel the ½-point bye (round {n})",
  },
  "zh-Hans": {
    pPairings: "对阵表", pScoreSheet: "记录纸", pStandingsAfter: "第 {n} 轮后排名",
    pEvent: "比赛", pClub: "单位", pRating: "等级分", pScore: "积分", pRank: "名次",
    pName: "姓名", pMove: "回合", pSignatures: "签名", pDate: "日期",
    pNoRound: "尚未编排任何一轮。", pPrint: "打印：", pPrintPairings: "对阵表",
    pPrintSheets: "记录纸", pPrintStandings: "排名", pOverTheBoard: "现场对局",
    pOverTheBoardLong: "现场对局（在实体棋盘上下：由我录入棋手和结果）",
    pAddPlayer: "添加棋手", pUnpair: "撤销编排", pRemove: "删除",
    pEnter: "录入", pCorrect: "更正", pMoves: "着法（可选）", pSaveMoves: "保存着法",
    pAbsent: "缺席", pPresent: "恢复出场",
    pHalfBye: "下一轮½分轮空", pCancelHalfBye: "取消½分轮空（第 {n} 轮）",
  },
  "zh-Hant": {
    pPairings: "對陣表", pScoreSheet: "記錄紙", pStandingsAfter: "第 {n} 輪後排名",
    pEvent: "比賽", pClub: "單位", pRating: "等級分", pScore: "積分", pRank: "名次",
    pName: "姓名", pMove: "回合", pSignatures: "簽名", pDate: "日期",
    pNoRound: "尚未編排任何一輪。", pPrint: "列印：", pPrintPairings: "對陣表",
    pPrintSheets: "記錄紙", pPrintStandings: "排名", pOverTheBoard: "現場對局",
    pOverTheBoardLong: "現場對局（在實體棋盤上下：由我錄入棋手和結果）",
    pAddPlayer: "新增棋手", pUnpair: "撤銷編排", pRemove: "刪除",
    pEnter: "錄入", pCorrect: "更正", pMoves: "著法（可選）", pSaveMoves: "儲存著法",
    pAbsent: "缺席", pPresent: "恢復出場",
    pHalfBye: "下一輪½分輪空", pCancelHalfBye: "取消½分輪空（第 {n} 輪）",
  },
  ko: {
    pPairings: "대진표", pScoreSheet: "기보 용지", pStandingsAfter: "{n}라운드 후 순위",
    pEvent: "대회", pClub: "소속", pRating: "레이팅", pScore: "점수", pRank: "순위",
    pName: "이름", pMove: "수", pSignatures: "서명", pDate: "날짜",
    pNoRound: "아직 대진이 없습니다.", pPrint: "인쇄:", pPrintPairings: "대진표",
    pPrintSheets: "기보 용지", pPrintStandings: "순위", pOverTheBoard: "대면 대국",
    pOverTheBoardLong: "대면 대국 (실제 판에서 둠: 선수와 결과는 내가 입력)",
    pAddPlayer: "선수 추가", pUnpair: "대진 취소", pRemove: "삭제",
    pEnter: "입력", pCorrect: "정정", pMoves: "기보 (선택)", pSaveMoves: "기보 저장",
    pAbsent: "불참", pPresent: "다시 참가",
    pHalfBye: "다음 라운드 ½점 휴식", pCancelHalfBye: "½점 휴식 취소({n}라운드)",
  },
};
for (const [code, table] of Object.entries(PRINT_STRINGS)) Object.assign(STRINGS[code], table);

// Piece names. English from the 001_ seed's "official" column with the usual alternative;
// pinyin and the Korean names as that seed spells them (and in Hangul for Korean readers).
/** @type {Record<string, Record<string, string | [string, string]>>} */
const PIECE_NAMES = {
  en: {
    king: "King (General)", advisor: "Guard (Advisor)", guard: "Guard (Advisor)",
    elephant: "Bishop (Elephant)", horse: "Knight (Horse)", chariot: "Rook (Chariot)", cannon: "Cannon",
    soldier: "Pawn (Soldier)",
  },
  "zh-Hans": {
    king: ["帅", "将"], advisor: ["仕", "士"], guard: ["仕", "士"], elephant: ["相", "象"],
    horse: ["马", "马"], chariot: ["车", "车"], cannon: ["炮", "炮"], soldier: ["兵", "卒"],
  },
  "zh-Hant": {
    king: ["帥", "將"], advisor: ["仕", "士"], guard: ["仕", "士"], elephant: ["相", "象"],
    horse: ["馬", "馬"], chariot: ["車", "車"], cannon: ["炮", "炮"], soldier: ["兵", "卒"],
  },
  ko: {
    king: "궁(장)", advisor: "사", guard: "사", elephant: "상", horse: "마", chariot: "차",
    cannon: "포", soldier: ["졸", "병"],
  },
};
// [first mover, second mover]: red's general is Shuai, black's Jiang; red's soldier Bing,
// black's Zu. In janggi, Cho's soldier is 卒 (Jol) and Han's 兵 (Byung).
/** @type {Record<string, [string, string]>} */
const PINYIN = {
  king: ["Shuai", "Jiang"], advisor: ["Shi", "Shi"], elephant: ["Xiang", "Xiang"],
  horse: ["Ma", "Ma"], chariot: ["Ju", "Ju"], cannon: ["Pao", "Pao"], soldier: ["Bing", "Zu"],
};
/** @type {Record<string, [string, string]>} */
const KOREAN_ROMAN = {
  king: ["Jang", "Jang"], guard: ["Sa", "Sa"], elephant: ["Sang", "Sang"], horse: ["Ma", "Ma"],
  chariot: ["Cha", "Cha"], cannon: ["Po", "Po"], soldier: ["Jol", "Byung"],
};

/** @typedef {import("./protocol.js").Notation} Notation */

let current = "en";

/** The interface language for a navigator.language value such as "zh-TW" or "ko-KR".
 * @param {string | null | undefined} tag
 * @returns {string} */
export function detectLanguage(tag) {
  const lower = String(tag || "en").toLowerCase();
  if (lower.startsWith("ko")) return "ko";
  if (lower.startsWith("zh")) {
    return /hant|tw|hk|mo/.test(lower) ? "zh-Hant" : "zh-Hans";
  }
  return "en";
}

/** @param {string} language a key of LANGUAGES (another is English) */
export function setLanguage(language) {
  current = STRINGS[language] ? language : "en";
  document.documentElement.lang = current;
}

/** @returns {string} the interface language, a key of LANGUAGES */
export function language() {
  return current;
}

/** The text for `key`, with {name} placeholders filled from `params`.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string} */
export function t(key, params = {}) {
  const table = STRINGS[current];
  const text = key in table ? table[key] : (STRINGS.en[key] ?? key);
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** Fill every element with data-i18n="key" (textContent only).
 * @param {ParentNode} [root] */
export function translatePage(root = document) {
  const nodes = /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n]"));
  // (each has the attribute: the selector asks for it)
  for (const node of nodes) node.textContent = t(/** @type {string} */ (node.dataset.i18n));
}

/** The side's name: red/black in xiangqi, Cho/Han in janggi. `first` is the side moving first.
 * @param {string} game
 * @param {boolean} first
 * @returns {string} */
export function sideName(game, first) {
  if (game === "janggi") return t(first ? "cho" : "han");
  return t(first ? "red" : "black");
}

/** The hover text for a piece: side, name in the interface language, and the native name.
 * @param {string} game
 * @param {import("./pieces.js").Piece} piece
 * @param {string} character the one written on it
 * @returns {string} */
export function describePiece(game, piece, character) {
  const index = piece.first ? 0 : 1;
  const side = sideName(game, piece.first);
  // A soldier is named by its character: 兵 (Bing, Byung) or 卒 (Zu, Jol), in either game.
  const pawnIndex = character === "兵" ? 1 : 0;
  let native = game === "janggi" ? KOREAN_ROMAN[piece.kind][index] : PINYIN[piece.kind][index];
  if (piece.kind === "soldier") {
    native = game === "janggi" ? ["Jol", "Byung"][pawnIndex] : ["Zu", "Bing"][pawnIndex];
  }
  const names = PIECE_NAMES[current][piece.kind];
  // In Chinese, janggi's generals are both 将 (楚 and 漢 are the sides written on them).
  const nameIndex = game === "janggi" && piece.kind === "king" ? 1 : index;
  let name = Array.isArray(names) ? names[nameIndex] : names;
  if (piece.kind === "soldier" && current === "ko") name = pawnIndex ? "병" : "졸";
  else if (piece.kind === "soldier" && current !== "en") name = character;
  if (current === "en") return `${side} ${name} — ${native} ${character}`;
  if (current === "ko") return `${side} ${name} (${character}, ${native})`;
  return `${side}${name}（${character}，${native}）`;
}

/** The notation a player who has not chosen gets: Chinese for zh, Korean for janggi in ko.
 * @param {string} game
 * @returns {Notation} */
export function defaultNotation(game) {
  if (current.startsWith("zh")) return "chinese";
  if (current === "ko" && game === "janggi") return "korean";
  return "wxf";
}

/** The notation to show: the player's choice, else the language's default; Korean
 * coordinates only for janggi.
 * @param {Notation | null | undefined} chosen the player's setting
 * @param {string} game
 * @returns {Notation} */
export function notationFor(chosen, game) {
  const notation = chosen || defaultNotation(game);
  return notation === "korean" && game !== "janggi" ? "wxf" : notation;
}
