"""The words of the mails and push messages in the page's four languages (English,
simplified and traditional Chinese, Korean: the keys of the page's ``LANGUAGES`` in
``static/js/i18n.js``); an account's language is stored with its notice settings."""

from __future__ import annotations

__all__ = ["LANGUAGES", "check_language", "language_of_request", "text", "variant_name"]

#: The languages, by the page's keys.
LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ko")

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "page_invalid_title": "Link not valid",
        "page_bad_unsubscribe": (
            "This unsubscribe link is not valid: it was used already, replaced by a newer one, "
            "or copied in part. Sign in and turn the digest off in your account's notice "
            "settings."
        ),
        "page_bad_confirm": (
            "This link does not confirm an address: it was used already, the address was "
            "changed since, or it was copied in part. Save the address again in your account's "
            "notice settings to be sent a new one."
        ),
        "page_confirm_title": "Confirm your e-mail address",
        "page_confirm_button": "Confirm this address",
        "page_confirmed_title": "Address confirmed",
        "page_confirmed_body": "{email} is confirmed.",
        "page_stop_title": "Stop the e-mail digest",
        "page_stop_body": "No more mails saying it is your move.",
        "page_stop_button": "Turn the digest off",
        "page_stopped_title": "Digest turned off",
        "page_stopped_body": (
            "{name} will get no more digests. You can turn it on again in your account's "
            "notice settings."
        ),
        "page_later_title": "Try again later",
        "page_later_body": "The server cannot reach its database just now.",
        "challenges_subject_one": "chuhan: a challenge waits for your answer",
        "challenges_subject_many": "chuhan: {count} challenges wait for your answer",
        "challenges_intro": (
            "Challenges waiting for your answer (open the home page to accept or decline):"
        ),
        "challenge_line": "{name} challenges you to {game}, until {until}",
        "days_per_move": "{variant}, {days} days per move",
        "hello": "Hello {name},",
        "confirm_subject": "chuhan: confirm your e-mail address",
        "confirm_body": (
            "To be mailed when it is your move, confirm this address by opening this link:"
        ),
        "confirm_ignore": (
            "If you did not ask for it, ignore this mail: nothing is sent to an address that "
            "is not confirmed."
        ),
        "digest_subject_one": "chuhan: your move in 1 game",
        "digest_subject_many": "chuhan: your move in {count} games",
        "digest_intro_one": "It is your move in 1 game:",
        "digest_intro_many": "It is your move in {count} games:",
        "game_against": "{variant} against {opponent}",
        "unsubscribe": "To stop these mails, open this link (no need to sign in):",
        "your_move_title": "Your move",
        "challenge_title": "A challenge",
        "challenge_body": "{name} challenges you",
        "challenge_accepted_title": "Challenge accepted",
        "challenge_declined_title": "Challenge declined",
        "challenge_expired_title": "Challenge expired",
        "challenge_accepted": "{name} accepted your challenge ({game})",
        "challenge_declined": "{name} declined your challenge ({game})",
        "challenge_expired": "Your challenge to {name} ({game}) expired unanswered",
        "answers_subject_one": "chuhan: news of your challenge",
        "answers_subject_many": "chuhan: news of {count} of your challenges",
        "answers_intro": "What became of your challenges:",
        "xiangqi": "xiangqi",
        "janggi": "janggi",
    },
    "zh-Hans": {
        "page_invalid_title": "链接无效",
        "page_bad_unsubscribe": (
            "这个退订链接无效：它已被使用、已被更新的链接取代，或没有复制完整。请登录，在账户的通"
            "知设置中关闭摘要邮件。"
        ),
        "page_bad_confirm": (
            "这个链接无法确认地址：它已被使用、地址已更改，或没有复制完整。请在账户的通知设置中重"
            "新保存地址，以收到新的确认邮件。"
        ),
        "page_confirm_title": "确认你的电子邮件地址",
        "page_confirm_button": "确认这个地址",
        "page_confirmed_title": "地址已确认",
        "page_confirmed_body": "{email} 已确认。",
        "page_stop_title": "停止摘要邮件",
        "page_stop_body": "不再发送提醒你走棋的邮件。",
        "page_stop_button": "关闭摘要邮件",
        "page_stopped_title": "摘要邮件已关闭",
        "page_stopped_body": "{name} 将不再收到摘要邮件。你可以在账户的通知设置中重新开启。",
        "page_later_title": "请稍后再试",
        "page_later_body": "服务器暂时无法连接数据库。",
        "challenges_subject_one": "chuhan：有 1 个挑战等你回应",
        "challenges_subject_many": "chuhan：有 {count} 个挑战等你回应",
        "challenges_intro": "以下挑战等你回应（打开首页接受或拒绝）：",
        "challenge_line": "{name} 向你发起{game}挑战，有效至 {until}",
        "days_per_move": "{variant}（每步 {days} 天）",
        "hello": "{name}，你好：",
        "confirm_subject": "chuhan：请确认你的电子邮件地址",
        "confirm_body": "轮到你走棋时要收到邮件，请打开以下链接确认这个地址：",
        "confirm_ignore": "如果这不是你的请求，请忽略这封邮件：未确认的地址不会收到任何邮件。",
        "digest_subject_one": "chuhan：有 1 盘棋轮到你走",
        "digest_subject_many": "chuhan：有 {count} 盘棋轮到你走",
        "digest_intro_one": "以下 1 盘棋轮到你走：",
        "digest_intro_many": "以下 {count} 盘棋轮到你走：",
        "game_against": "{variant}，对手 {opponent}",
        "unsubscribe": "不想再收到这些邮件，请打开这个链接（无需登录）：",
        "your_move_title": "轮到你走棋",
        "challenge_title": "有人向你挑战",
        "challenge_body": "{name} 向你发起挑战",
        "challenge_accepted_title": "挑战已被接受",
        "challenge_declined_title": "挑战被拒绝",
        "challenge_expired_title": "挑战已过期",
        "challenge_accepted": "{name} 接受了你的{game}挑战",
        "challenge_declined": "{name} 拒绝了你的{game}挑战",
        "challenge_expired": "你向 {name} 发起的{game}挑战已过期，未获回应",
        "answers_subject_one": "chuhan：你的挑战有了结果",
        "answers_subject_many": "chuhan：你的 {count} 个挑战有了结果",
        "answers_intro": "你发起的挑战有了结果：",
        "xiangqi": "象棋",
        "janggi": "韩国象棋",
    },
    "zh-Hant": {
        "page_invalid_title": "連結無效",
        "page_bad_unsubscribe": (
            "這個退訂連結無效：它已被使用、已被更新的連結取代，或沒有複製完整。請登入，在帳戶的通"
            "知設定中關閉摘要郵件。"
        ),
        "page_bad_confirm": (
            "這個連結無法確認地址：它已被使用、地址已更改，或沒有複製完整。請在帳戶的通知設定中重"
            "新儲存地址，以收到新的確認郵件。"
        ),
        "page_confirm_title": "確認你的電子郵件地址",
        "page_confirm_button": "確認這個地址",
        "page_confirmed_title": "地址已確認",
        "page_confirmed_body": "{email} 已確認。",
        "page_stop_title": "停止摘要郵件",
        "page_stop_body": "不再傳送提醒你走棋的郵件。",
        "page_stop_button": "關閉摘要郵件",
        "page_stopped_title": "摘要郵件已關閉",
        "page_stopped_body": "{name} 將不再收到摘要郵件。你可以在帳戶的通知設定中重新開啟。",
        "page_later_title": "請稍後再試",
        "page_later_body": "伺服器暫時無法連線資料庫。",
        "challenges_subject_one": "chuhan：有 1 個挑戰等你回應",
        "challenges_subject_many": "chuhan：有 {count} 個挑戰等你回應",
        "challenges_intro": "以下挑戰等你回應（打開首頁接受或拒絕）：",
        "challenge_line": "{name} 向你發起{game}挑戰，有效至 {until}",
        "days_per_move": "{variant}（每步 {days} 天）",
        "hello": "{name}，你好：",
        "confirm_subject": "chuhan：請確認你的電子郵件地址",
        "confirm_body": "輪到你走棋時要收到郵件，請打開以下連結確認這個地址：",
        "confirm_ignore": "如果這不是你的請求，請忽略這封郵件：未確認的地址不會收到任何郵件。",
        "digest_subject_one": "chuhan：有 1 盤棋輪到你走",
        "digest_subject_many": "chuhan：有 {count} 盤棋輪到你走",
        "digest_intro_one": "以下 1 盤棋輪到你走：",
        "digest_intro_many": "以下 {count} 盤棋輪到你走：",
        "game_against": "{variant}，對手 {opponent}",
        "unsubscribe": "不想再收到這些郵件，請打開這個連結（無需登入）：",
        "your_move_title": "輪到你走棋",
        "challenge_title": "有人向你挑戰",
        "challenge_body": "{name} 向你發起挑戰",
        "challenge_accepted_title": "挑戰已被接受",
        "challenge_declined_title": "挑戰被拒絕",
        "challenge_expired_title": "挑戰已過期",
        "challenge_accepted": "{name} 接受了你的{game}挑戰",
        "challenge_declined": "{name} 拒絕了你的{game}挑戰",
        "challenge_expired": "你向 {name} 發起的{game}挑戰已過期，未獲回應",
        "answers_subject_one": "chuhan：你的挑戰有了結果",
        "answers_subject_many": "chuhan：你的 {count} 個挑戰有了結果",
        "answers_intro": "你發起的挑戰有了結果：",
        "xiangqi": "象棋",
        "janggi": "韓國象棋",
    },
    "ko": {
        "page_invalid_title": "링크가 올바르지 않습니다",
        "page_bad_unsubscribe": (
            "이 수신 거부 링크는 올바르지 않습니다. 이미 사용되었거나, 새 링크로 바뀌었거나, 일부"
            "만 복사되었습니다. 로그인한 뒤 계정의 알림 설정에서 요약 "
            "메일을 끄세요."
        ),
        "page_bad_confirm": (
            "이 링크로는 주소를 확인할 수 없습니다. 이미 사용되었거나, 주소가 바뀌었거나, 일부만 "
            "복사되었습니다. 계정의 알림 설정에서 주소를 다시 저장하면 "
            "새 링크를 보내 드립니다."
        ),
        "page_confirm_title": "이메일 주소 확인",
        "page_confirm_button": "이 주소 확인",
        "page_confirmed_title": "주소가 확인되었습니다",
        "page_confirmed_body": "{email} 주소가 확인되었습니다.",
        "page_stop_title": "요약 메일 중지",
        "page_stop_body": "내 차례를 알리는 메일을 더 이상 보내지 않습니다.",
        "page_stop_button": "요약 메일 끄기",
        "page_stopped_title": "요약 메일을 껐습니다",
        "page_stopped_body": (
            "{name} 님에게 더 이상 요약 메일을 보내지 않습니다. 계정의 알림 설정에서 다시 켤 수 "
            "있습니다."
        ),
        "page_later_title": "잠시 후 다시 시도하세요",
        "page_later_body": "서버가 지금 데이터베이스에 연결할 수 없습니다.",
        "challenges_subject_one": "chuhan: 답을 기다리는 도전이 1개 있습니다",
        "challenges_subject_many": "chuhan: 답을 기다리는 도전이 {count}개 있습니다",
        "challenges_intro": "답을 기다리는 도전(홈 페이지에서 수락하거나 거절하세요):",
        "challenge_line": "{name} 님의 {game} 도전, {until}까지",
        "days_per_move": "{variant}, 한 수에 {days}일",
        "hello": "{name} 님, 안녕하세요.",
        "confirm_subject": "chuhan: 이메일 주소를 확인해 주세요",
        "confirm_body": (
            "차례가 되었을 때 메일을 받으려면 아래 링크를 열어 이 주소를 확인해 주세요."
        ),
        "confirm_ignore": (
            "요청하지 않으셨다면 이 메일을 무시하세요. 확인되지 않은 주소로는 아무것도 보내지 "
            "않습니다."
        ),
        "digest_subject_one": "chuhan: 대국 1개에서 당신 차례입니다",
        "digest_subject_many": "chuhan: 대국 {count}개에서 당신 차례입니다",
        "digest_intro_one": "다음 대국 1개에서 당신 차례입니다.",
        "digest_intro_many": "다음 대국 {count}개에서 당신 차례입니다.",
        "game_against": "{variant}, 상대 {opponent}",
        "unsubscribe": "이 메일을 그만 받으려면 이 링크를 여세요(로그인할 필요 없음).",
        "your_move_title": "당신 차례입니다",
        "challenge_title": "도전이 왔습니다",
        "challenge_body": "{name} 님이 도전했습니다",
        "challenge_accepted_title": "도전이 수락되었습니다",
        "challenge_declined_title": "도전이 거절되었습니다",
        "challenge_expired_title": "도전이 만료되었습니다",
        "challenge_accepted": "{name} 님이 도전을 수락했습니다({game})",
        "challenge_declined": "{name} 님이 도전을 거절했습니다({game})",
        "challenge_expired": "{name} 님에게 보낸 도전이 답 없이 만료되었습니다({game})",
        "answers_subject_one": "chuhan: 보낸 도전에 소식이 있습니다",
        "answers_subject_many": "chuhan: 보낸 도전 {count}개에 소식이 있습니다",
        "answers_intro": "보낸 도전의 소식:",
        "xiangqi": "샹치",
        "janggi": "장기",
    },
}


def check_language(language: str) -> str:
    """The language if it is one of :data:`LANGUAGES`; ValueError naming it otherwise."""
    if language not in LANGUAGES:
        raise ValueError(f"{language[:20]!r} is not a language here; one of {', '.join(LANGUAGES)}")
    return language


def text(language: str, key: str, **params: object) -> str:
    """The text ``key`` in ``language`` (English for another), its ``{name}``s filled."""
    table = _TEXTS.get(language, _TEXTS["en"])
    return table[key].format(**params)


def variant_name(language: str, variant: str) -> str:
    """A game's variant as players of the language name it (the stored name otherwise)."""
    table = _TEXTS.get(language, _TEXTS["en"])
    return table.get(variant, variant) if variant in ("xiangqi", "janggi") else variant


def language_of_request(asked: str | None, accept_language: str) -> str:
    """The language of a page opened from a mail: the link's own (``asked``, the
    account's language when the mail was written), else the browser's first language
    that is one of :data:`LANGUAGES` (Chinese of Taiwan, Hong Kong or Macau, and
    ``zh-Hant``, traditional; other Chinese simplified), else English."""
    if asked in LANGUAGES:
        return asked
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("ko"):
            return "ko"
        if tag.startswith("zh"):
            traditional = ("hant", "-tw", "-hk", "-mo")
            return "zh-Hant" if any(mark in tag for mark in traditional) else "zh-Hans"
        if tag.startswith("en"):
            return "en"
    return "en"
