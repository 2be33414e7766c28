from accounts.sms.base import BaseSmsBackend


class FailingBackend(BaseSmsBackend):
    """An SMS provider that is down."""

    def send(self, phone: str, message: str) -> None:
        raise ConnectionError("provider unreachable")
