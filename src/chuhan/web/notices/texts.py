"""The words of the mails and push messages in the page's four languages (English,
simplified and traditional Chinese, Korean: the keys of the page's ``LANGUAGES`` in
``static/js/i18n.js``); an account's language is stored with its notice settings."""

from __future__ import annotations

__all__ = ["LANGUAGES", "check_language", "text", "variant_name"]

#: The languages, by the page's keys.
LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ko")

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
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
        "xiangqi": "xiangqi",
        "janggi": "janggi",
    },
    "zh-Hans": {
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
        "xiangqi": "象棋",
        "janggi": "韩国象棋",
    },
    "zh-Hant": {
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
        "xiangqi": "象棋",
        "janggi": "韓國象棋",
    },
    "ko": {
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
