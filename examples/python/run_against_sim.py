"""End to end: the Python client of docs/wire.md against a running `paywire sim`.

    python3 run_against_sim.py [ORIGIN] [--callback-port PORT]

ORIGIN defaults to http://127.0.0.1:4010. With --callback-port the script serves the callback URL
the simulator was started with (`paywire sim --callback-url http://127.0.0.1:PORT/callback`),
answers OK and verifies every delivery; without it, it verifies the bodies the simulator lists at
/__paywire/callbacks. Exits 1 on the first failure.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from paywire_wire import CallbackError, CardGateway, GatewayError, sign  # noqa: E402

# The simulator's public sandbox credentials (docs/cli.md); use your own against the gateway.
MERCHANT_KEY, CLIENT_KEY, PASSWORD = "sim-merchant-key", "sim-client-key", "sim-password"


class Inbox:
    """The callbacks the simulator delivered, raw, as the endpoint received them."""

    def __init__(self) -> None:
        self.bodies: List[bytes] = []
        self.changed = threading.Condition()

    def add(self, body: bytes) -> None:
        with self.changed:
            self.bodies.append(body)
            self.changed.notify_all()

    def wait_for(self, predicate, timeout: float = 10.0) -> bytes:
        with self.changed:
            found = self.changed.wait_for(lambda: next((b for b in self.bodies if predicate(b)), None), timeout)
        if found is None:
            raise AssertionError("no matching callback was delivered within the time limit")
        return found


def serve(port: int, inbox: Inbox) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server name)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            # Answer at once, then process: the gateway retries anything but a quick 2xx.
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"OK")
            inbox.add(body)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def control(origin: str, path: str, payload=None):
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(origin + "/__paywire" + path, data=data, method="POST" if data else "GET")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


class _StayOnThePage(urllib.request.HTTPRedirectHandler):
    """The payer's browser would follow the 303 back to the shop; this script only reads where to."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 (urllib's signature)
        return None


def pay(redirect_url: str, back_to: str, expiry: str = "01/2038") -> None:
    # The payer on the simulator's hosted page (a browser on the real gateway): once paid, the page
    # sends the payer back to success_url with a 303, the URL exactly as the purchase sent it. The
    # way back proves nothing: the status lookup and the verified callback decide the payment.
    data = urllib.parse.urlencode({"expiry": expiry}).encode()
    opener = urllib.request.build_opener(_StayOnThePage)
    try:
        opener.open(urllib.request.Request(redirect_url, data=data, method="POST"), timeout=10)
        check(False, "the hosted page sends the payer back to success_url")
    except urllib.error.HTTPError as answer:
        page = answer.read().decode()
        check(
            answer.code == 303 and answer.headers.get("Location") == back_to and "pending" in page,
            "the payer paid (pending) and is sent back to success_url with a 303",
        )


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)
    print(f"ok  {what}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("origin", nargs="?", default="http://127.0.0.1:4010")
    parser.add_argument("--callback-port", type=int)
    args = parser.parse_args()
    origin = args.origin.rstrip("/")
    inbox = Inbox()
    server = serve(args.callback_port, inbox) if args.callback_port else None
    gw = CardGateway(origin + "/card", origin + "/card", MERCHANT_KEY, CLIENT_KEY, PASSWORD)
    run = f"py-{int(time.time() * 1000)}"
    try:
        check(
            sign(["A-1001", "10.00", "EUR", "Blue shoes"], PASSWORD) == "c52501b4d11be6aa03fc562ffc6739d7dd128b8b",
            "sign: the worked example of docs/wire.md",
        )
        check("sim-password" not in repr(gw), "the password is not in repr()")

        order = f"{run}-1"
        answer = gw.purchase(
            order, "10.00", "EUR", "Blue shoes", "https://shop.example.com/paid", "https://shop.example.com/cart",
            req_token=True, recurring_init=True,
        )
        check("redirect_url" in answer, "checkout.purchase answers a redirect_url")
        payment_id = answer["redirect_url"].rsplit("/", 1)[1]
        pay(answer["redirect_url"], "https://shop.example.com/paid")

        status = gw.status(payment_id=payment_id)
        check(status["status"] == "pending", "checkout.status by payment_id: pending")
        status = gw.status(order_id=order)
        check(status["payment_id"] == payment_id and status.get("card_token"), "checkout.status by order_id")

        trans = gw.s2s("GET_TRANS_STATUS_BY_ORDER", order_id=order)
        check(trans["status"] == "PENDING", "s2s.getTransStatusByOrder: PENDING")
        trans_id = trans["trans_id"]
        check(gw.s2s("GET_TRANS_STATUS", trans_id=trans_id)["trans_id"] == trans_id, "s2s.getTransStatus")
        check(gw.s2s("CAPTURE", trans_id=trans_id)["status"] == "SETTLED", "s2s.capture: SETTLED")
        try:
            gw.s2s("CAPTURE", trans_id=trans_id)
            check(False, "a second capture is refused")
        except GatewayError as error:
            check(error.error_code == 208003, f"a second capture is refused: {error}")

        credit = gw.credit(f"{run}-R1", "4.00", "EUR", "Refund, one shoe", status["card_token"], "Jane Doe")
        check(credit["result"] == "SUCCESS", "checkout.credit: SUCCESS")

        renewal = gw.s2s(
            "RECURRING_SALE", order_id=f"{run}-2", order_amount="10.00", order_currency="EUR",
            order_description="Shoes, month 2", recurring_first_trans_id=trans_id,
            recurring_token=status["recurring_token"],
        )
        check(renewal["status"] == "SETTLED", "s2s.recurringSale: SETTLED")
        refund = gw.s2s("CREDITVOID", trans_id=renewal["trans_id"])
        check(refund["result"] == "ACCEPTED", "s2s.creditVoid: ACCEPTED")

        order2 = f"{run}-3"
        answer = gw.purchase(
            order2, "25.50", "EUR", "Red hat", "https://shop.example.com/paid", "https://shop.example.com/cart"
        )
        pay(answer["redirect_url"], "https://shop.example.com/paid")
        trans_id2 = gw.s2s("GET_TRANS_STATUS_BY_ORDER", order_id=order2)["trans_id"]
        check(gw.s2s("VOID", trans_id=trans_id2)["status"] == "VOID", "s2s.void: VOID")

        schedule = gw.s2s("CREATE_SCHEDULE", name="Monthly", interval_length="1", interval_unit="month",
                          payments_count="12")
        schedule_id = schedule["schedule_id"]
        check(bool(schedule_id), "s2s.createSchedule answers a schedule_id")
        check(gw.s2s("UPDATE_SCHEDULE", schedule_id=schedule_id, payments_count="6")["result"] == "SUCCESS",
              "s2s.updateSchedule")
        check(gw.s2s("DELETE_SCHEDULE", schedule_id=schedule_id)["result"] == "SUCCESS", "s2s.deleteSchedule")
        try:
            gw.s2s("DELETE_SCHEDULE", schedule_id="not-a-uuid")
            check(False, "a malformed schedule_id is refused")
        except GatewayError as error:
            check(error.error_message == "This is not a valid UUID.", f"a malformed schedule_id is refused: {error}")

        wrong = CardGateway(origin + "/card", origin + "/card", MERCHANT_KEY, CLIENT_KEY, "not-the-password")
        try:
            wrong.s2s("GET_TRANS_STATUS", trans_id=trans_id)
            check(False, "a wrong password is refused")
        except GatewayError as error:
            check(error.status == 400 and error.error_code == 100000, f"a wrong password is refused: {error}")

        # Callbacks: the sale of the first order, delivered to our endpoint (or listed by the simulator).
        def is_sale(body: bytes) -> bool:
            fields = dict(urllib.parse.parse_qsl(body.decode()))
            return fields.get("order_number") == order and fields.get("type") == "sale"

        if server is not None:
            sale = inbox.wait_for(is_sale)
            inbox.wait_for(lambda b: f"order_number={order2}&".encode() in b and b"type=void" in b)
        else:
            bodies = [c["body"].encode() for c in control(origin, "/callbacks")]
            sale = next(b for b in bodies if is_sale(b))
            inbox.bodies.extend(bodies)
        fields = gw.verify_callback(sale)
        check(fields["status"] == "success", "callback: the sale verifies")
        for body in list(inbox.bodies):
            gw.verify_callback(body)
        check(len(inbox.bodies) >= 2, f"callback: all {len(inbox.bodies)} deliveries verify")
        for forged, reason in (
            (sale.replace(b"order_amount=10.00", b"order_amount=1000.00"), "hash_mismatch"),
            (sale + b"\n", "trailing_newline"),
            (sale + b"&id=other", "duplicate_field"),
            (b"", "empty_body"),
            (b"id=1&order_number", "malformed_body"),
            (b"id=%FF&hash=00", "malformed_body"),
        ):
            try:
                gw.verify_callback(forged)
                check(False, f"callback refused: {reason}")
            except CallbackError as error:
                check(error.reason == reason, f"callback refused: {reason}")
        print("python client: every operation of docs/wire.md works against the simulator")
        return 0
    except (AssertionError, GatewayError, CallbackError, OSError) as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
