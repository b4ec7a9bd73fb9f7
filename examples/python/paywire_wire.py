"""A card gateway client in plain Python (standard library only), written from docs/wire.md.

    from paywire_wire import CardGateway
    gw = CardGateway(checkout_url, s2s_url, merchant_key, client_key, password)
    answer = gw.purchase("A-1", "10.00", "EUR", "Blue shoes", "https://shop.example.com/ok",
                         "https://shop.example.com/cart")
    gw.s2s("CAPTURE", trans_id="...")
    fields = gw.verify_callback(raw_body)      # raises CallbackError when the body is not the gateway's

Python 3.9 or later. Every request is signed with sha1(md5(UPPER(inputs + password))): md5 as
lowercase hex text, UPPER on ASCII a-z only, the exact strings sent. The password is never sent,
never printed, and not part of repr().
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional, Sequence

__all__ = [
    "CALLBACK_FIELDS",
    "CallbackError",
    "CardGateway",
    "GatewayError",
    "HASH_INPUTS",
    "sign",
    "upper_ascii",
]

# The hash inputs of each S2S action, in order; the password comes last (CREATE_SCHEDULE's are not
# published: the simulator signs the password alone, your account documents its own).
HASH_INPUTS: Dict[str, Sequence[str]] = {
    "GET_TRANS_STATUS": ("trans_id",),
    "GET_TRANS_STATUS_BY_ORDER": ("order_id",),
    "CAPTURE": ("trans_id",),
    "VOID": ("trans_id",),
    "CREDITVOID": ("trans_id",),
    "RECURRING_SALE": ("order_id",),
    "CREATE_SCHEDULE": (),
    "DELETE_SCHEDULE": ("schedule_id",),
    "UPDATE_SCHEDULE": ("schedule_id",),
}

# The SDK's operation name of each action (the same string its errors and telemetry carry).
OPERATIONS: Dict[str, str] = {
    "GET_TRANS_STATUS": "s2s.getTransStatus",
    "GET_TRANS_STATUS_BY_ORDER": "s2s.getTransStatusByOrder",
    "CAPTURE": "s2s.capture",
    "VOID": "s2s.void",
    "CREDITVOID": "s2s.creditVoid",
    "RECURRING_SALE": "s2s.recurringSale",
    "CREATE_SCHEDULE": "s2s.createSchedule",
    "DELETE_SCHEDULE": "s2s.deleteSchedule",
    "UPDATE_SCHEDULE": "s2s.updateSchedule",
}

# The signed fields of a Checkout callback, in hash order.
CALLBACK_FIELDS = ("id", "order_number", "order_amount", "order_currency", "order_description")

# Digits, optionally a point and more digits, ASCII only ("10.00", "100"; never "1e3", "10,00", "-1").
_AMOUNT = re.compile(r"[0-9]+(\.[0-9]+)?")

_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def upper_ascii(text: str) -> str:
    """Uppercases ASCII a-z only, as the gateway does (str.upper would turn 'ß' into 'SS')."""
    return text.translate(_ASCII_UPPER)


def sign(values: Sequence[str], password: str) -> str:
    """sha1(md5(UPPER(values... + password))) over UTF-8, both digests as lowercase hex text."""
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"hash input must be the string sent, got {type(value).__name__}")
    text = upper_ascii("".join(values) + password)
    inner = hashlib.md5(text.encode("utf-8")).hexdigest()
    return hashlib.sha1(inner.encode("ascii")).hexdigest()


class GatewayError(Exception):
    """The gateway answered a failure: `operation`, HTTP `status`, `error_code`, `error_message`, `errors`."""

    def __init__(self, operation: str, status: int, answer: Mapping[str, Any]):
        self.operation = operation
        self.status = status
        self.error_code = answer.get("error_code")
        self.error_message = answer.get("error_message")
        self.errors = answer.get("errors") or []
        detail = f"; {'; '.join(map(str, self.errors))}" if self.errors else ""
        super().__init__(f"{operation}: HTTP {status}, {self.error_code} {self.error_message}{detail}")


class CallbackError(Exception):
    """A callback body that is not the gateway's: `reason` says why (never the expected hash)."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(f"callback not verified ({reason}): {message}")


class CardGateway:
    """Checkout (JSON, merchant_key) and S2S CARD (form, client_key) requests, each signed."""

    def __init__(
        self,
        checkout_url: str,
        s2s_url: str,
        merchant_key: str,
        client_key: str,
        password: str,
        timeout: float = 30.0,
    ):
        for name, value in (("merchant_key", merchant_key), ("client_key", client_key), ("password", password)):
            if not isinstance(value, str) or value == "":
                raise ValueError(f"{name}: must be a non-empty string")
        self.checkout_url = checkout_url.rstrip("/")
        self.s2s_url = s2s_url.rstrip("/")
        self.merchant_key = merchant_key
        self.client_key = client_key
        self._password = password
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"CardGateway(checkout_url={self.checkout_url!r}, s2s_url={self.s2s_url!r}, password=***)"

    # ── Checkout ──────────────────────────────────────────────────────────────────────────────

    def purchase(
        self,
        number: str,
        amount: str,
        currency: str,
        description: str,
        success_url: str,
        cancel_url: str,
        **optional: Any,
    ) -> Dict[str, Any]:
        """checkout.purchase: a hosted payment session; the answer's redirect_url is for the payer."""
        _amount("order.amount", amount)
        body = {
            "merchant_key": self.merchant_key,
            "operation": "purchase",
            "order": {"number": number, "amount": amount, "currency": currency, "description": description},
            "success_url": success_url,
            "cancel_url": cancel_url,
            **optional,
            "hash": sign([number, amount, currency, description], self._password),
        }
        return self._post_json("checkout.purchase", "/api/v1/session", body)

    def status(self, payment_id: Optional[str] = None, order_id: Optional[str] = None) -> Dict[str, Any]:
        """checkout.status: by payment_id or by order_id (exactly one), hashed with that value."""
        if (payment_id is None) == (order_id is None):
            raise ValueError("status: give exactly one of payment_id and order_id")
        name, value = ("payment_id", payment_id) if payment_id is not None else ("order_id", order_id)
        body = {"merchant_key": self.merchant_key, name: value, "hash": sign([value], self._password)}
        return self._post_json("checkout.status", "/api/v1/payment/status", body)

    def credit(
        self,
        order_id: str,
        amount: str,
        currency: str,
        description: str,
        card_token: str,
        name: str,
    ) -> Dict[str, Any]:
        """checkout.credit: money back to the card of a settled sale (one card_token string)."""
        _amount("order_amount", amount)
        if not isinstance(card_token, str) or card_token == "":
            raise ValueError("card_token: must be one non-empty string (the sale's card_token)")
        body = {
            "merchant_key": self.merchant_key,
            "operation": "credit",
            "order_id": order_id,
            "order_amount": amount,
            "order_currency": currency,
            "order_description": description,
            "card_token": card_token,
            "name": name,
            "hash": sign([order_id, amount, currency, description], self._password),
        }
        return self._post_json("checkout.credit", "/api/v1/payment/card/credit", body)

    # ── S2S CARD ──────────────────────────────────────────────────────────────────────────────

    def s2s(self, action: str, **fields: str) -> Dict[str, Any]:
        """One S2S CARD action, form-encoded to {s2s}/post, hashed over the action's inputs."""
        if action not in HASH_INPUTS:
            raise ValueError(f"action: must be one of {', '.join(HASH_INPUTS)} (got {action!r})")
        inputs = HASH_INPUTS[action]
        missing = [name for name in inputs if not fields.get(name)]
        if missing:
            raise ValueError(f"{OPERATIONS[action]}: {', '.join(missing)} is required (a hash input)")
        for name, value in fields.items():
            if not isinstance(value, str):
                raise TypeError(f"{name}: must be the string to send, got {type(value).__name__}")
        form = {
            "action": action,
            "client_key": self.client_key,
            **fields,
            "hash": sign([fields[name] for name in inputs], self._password),
        }
        data = urllib.parse.urlencode(form).encode("ascii")
        return self._send(OPERATIONS[action], self.s2s_url + "/post", data, "application/x-www-form-urlencoded")

    # ── Callbacks ─────────────────────────────────────────────────────────────────────────────

    def verify_callback(self, raw_body: bytes, fields: Sequence[str] = CALLBACK_FIELDS) -> Dict[str, str]:
        """Verifies a Checkout callback over its raw body; returns its fields, or raises CallbackError."""
        if isinstance(raw_body, str):
            raw_body = raw_body.encode("utf-8")
        if raw_body == b"":
            raise CallbackError("empty_body", "the body is empty")
        if raw_body.endswith(b"\n"):
            # The gateway never sends one; a body saved with echo or a text editor gets one.
            raise CallbackError("trailing_newline", "the body ends with a newline the gateway never sends")
        try:
            text = raw_body.decode("utf-8")
            pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, strict_parsing=True, errors="strict")
        except ValueError:  # UnicodeDecodeError included
            raise CallbackError("malformed_body", "the body is not UTF-8 form encoding (name=value&...)") from None
        received: Dict[str, str] = {}
        for name, value in pairs:
            if name in received:
                raise CallbackError("duplicate_field", f"{name} appears more than once")
            received[name] = value
        if not received.get("hash"):
            raise CallbackError("missing_hash", "the body has no hash")
        absent = [name for name in fields if not received.get(name)]
        if absent:
            raise CallbackError("missing_field", f"signed field(s) missing or empty: {', '.join(absent)}")
        expected = sign([received[name] for name in fields], self._password)
        if not hmac.compare_digest(expected, received["hash"]):
            raise CallbackError("hash_mismatch", "the hash does not match the body and your password")
        return received

    # ── Transport ─────────────────────────────────────────────────────────────────────────────

    def _post_json(self, operation: str, path: str, body: Mapping[str, Any]) -> Dict[str, Any]:
        data = json.dumps(body, separators=(",", ":")).encode("utf-8")
        return self._send(operation, self.checkout_url + path, data, "application/json")

    def _send(self, operation: str, url: str, data: bytes, content_type: str) -> Dict[str, Any]:
        request = urllib.request.Request(
            url, data=data, method="POST", headers={"Content-Type": content_type, "Accept": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            answer = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            raise GatewayError(operation, status, {"error_message": "the answer is not JSON"}) from None
        if not isinstance(answer, dict):
            raise GatewayError(operation, status, {"error_message": "the answer is not a JSON object"})
        if status >= 400 or answer.get("result") == "ERROR":
            raise GatewayError(operation, status, answer)
        return answer


def _amount(field: str, value: Any) -> None:
    # The amount is hashed as sent: a number would be written differently in the body and the hash.
    if not isinstance(value, str) or not _AMOUNT.fullmatch(value):
        raise ValueError(f"{field}: must be the amount as a decimal string, e.g. '10.00' (got {value!r})")
