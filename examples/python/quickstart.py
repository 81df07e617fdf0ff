#!/usr/bin/env python3
"""The quickstart in Python, standard library only (Python 3.8+): from your API key to a completed
order, its ledger entry and a verified webhook.

    TOPUP_API_URL=http://localhost:3000 TOPUP_API_KEY=svc_... python3 quickstart.py

1. reads the balance and the catalog;
2. places an order for the 60 UC pack with your own `trxid` (its idempotency key: sending it again
   never buys twice);
3. waits for it to finish, then reads it back by its order number;
4. reads the ledger, newest first;
5. with WEBHOOK_SECRET (the endpoint's whsec_... secret the bot's /webhook add showed) and
   WEBHOOK_LISTEN (the host:port that endpoint's URL points at, e.g. 127.0.0.1:8080), receives the
   order's `order.completed` delivery and verifies its Standard Webhooks signature.

Copy what you need: `TopupApi` (calls, errors, safe retries, waiting) and `verify_webhook`.
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer


class TopupApiError(Exception):
    """A failure answer: switch on `code` (the error reference lists every code)."""

    def __init__(self, status, code, message, retry_after=None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.retry_after = status, code, retry_after


# Codes whose retry, unchanged, can succeed; an order retried with the same trxid never buys twice.
RETRYABLE = {"RATE_LIMIT", "DUPLICATE_IN_FLIGHT", "RATE_LIMIT_UNAVAILABLE", "SERVICE_UNAVAILABLE", "INTERNAL_ERROR"}


class TopupApi:
    def __init__(self, base_url, api_key, timeout=60):
        self.base_url, self.api_key, self.timeout = base_url.rstrip("/"), api_key, timeout

    def call(self, method, path, body=None, attempts=4):
        """One API call, retried on the answers whose retry can succeed (after Retry-After)."""
        for attempt in range(attempts):
            try:
                return self._send(method, path, body)
            except TopupApiError as error:
                if error.code not in RETRYABLE or attempt == attempts - 1:
                    raise
                time.sleep(error.retry_after or 2**attempt)

    def _send(self, method, path, body):
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"X-API-Key": self.api_key, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as failure:
            try:
                answer = json.loads(failure.read() or b"{}")  # every failure is JSON with a code
            except ValueError:
                answer = {}
            retry_after = failure.headers.get("Retry-After")
            raise TopupApiError(
                failure.code,
                answer.get("code", "HTTP_%d" % failure.code),
                answer.get("error", failure.reason),
                int(retry_after) if retry_after and retry_after.isdigit() else None,
            ) from None

    def place_order(self, pid, trxid, **fields):
        return self.call("POST", "/orders", {"pid": pid, "trxid": trxid, **fields})

    def get_order(self, reference, wait=0, by=None):
        query = {"wait": wait} if wait else {}
        if by:
            query["by"] = by
        suffix = "?" + urllib.parse.urlencode(query) if query else ""
        return self.call("GET", "/orders/" + urllib.parse.quote(str(reference), safe="") + suffix)

    def wait_for_order(self, reference, timeout=120):
        """The order once completed or cancelled: each call is held up to 30 s until it finishes."""
        deadline = time.monotonic() + timeout
        while True:
            order = self.get_order(reference, wait=30)
            if order["status"] in ("completed", "cancelled") or time.monotonic() > deadline:
                return order


def order_number(public_id):
    """The order number, the numeric form of an order reference: the public id's third part in base36."""
    return int(public_id.split("-")[2], 36)


class WebhookVerificationError(Exception):
    pass


def verify_webhook(secret, headers, body, tolerance=300, now=None):
    """The event of a delivery whose signature and timestamp check out (Standard Webhooks).

    secret: the endpoint's "whsec_..." secret; headers: the request's headers (any case);
    body: the raw body as received, in bytes, before any parsing. Raises WebhookVerificationError.
    Deliveries are at least once: dedupe on the webhook-id header.
    """
    headers = {name.lower(): value for name, value in headers.items()}
    message_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not message_id or not timestamp or not signatures or not timestamp.isdigit():
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if abs((now if now is not None else time.time()) - int(timestamp)) > tolerance:
        raise WebhookVerificationError("timestamp too far from now")
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = message_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # Several space-separated signatures while a rotated secret overlaps: any one may match.
    for candidate in signatures.split(" "):
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise WebhookVerificationError("no signature matches")


def receive_webhooks(server, secret, until, timeout=60):
    """Answers deliveries on `server` (verified: 204, otherwise 400) until one is `until(event)`."""
    found = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                event = verify_webhook(secret, dict(self.headers.items()), body)
            except WebhookVerificationError as error:
                print(f"webhook: refused ({error})")
                self.send_response(400)
                self.end_headers()
                return
            self.send_response(204)
            self.end_headers()
            if until(event):
                found.append((self.headers["webhook-id"], event))

        def log_message(self, *args):
            pass

    server.RequestHandlerClass = Handler
    server.timeout = 1
    deadline = time.monotonic() + timeout
    while not found and time.monotonic() < deadline:
        server.handle_request()
    return found[0] if found else None


def main():
    api = TopupApi(os.environ.get("TOPUP_API_URL", "http://localhost:3000"), os.environ["TOPUP_API_KEY"])
    trxid = os.environ.get("TRXID") or "quickstart-py-%d" % time.time()
    secret, listen = os.environ.get("WEBHOOK_SECRET"), os.environ.get("WEBHOOK_LISTEN")
    # Listening before the order is placed: a delivery that comes early waits in the socket's queue.
    server = None
    if secret and listen:
        host, _, port = listen.rpartition(":")
        server = HTTPServer((host or "127.0.0.1", int(port)), BaseHTTPRequestHandler)

    balance = api.call("GET", "/balance")
    print("balance: %.2f %s" % (balance["balanceUsd"], balance["currency"]))
    pack = next(p for p in api.call("GET", "/products")["products"] if p["id"] == "SVCBR60")
    print("pack: %s (%s, %s) %.2f USD" % (pack["id"], pack["gameName"], pack["packName"], pack["price"]))

    placed = api.place_order("SVCBR60", trxid, userId="12345678")
    print("placed: %s %s (trxid %s)" % (placed["orderId"], placed["status"], trxid))
    done = api.wait_for_order(trxid)  # the trxid is an order reference too
    print("finished: %s %s" % (done["orderId"], done["status"]))
    number = order_number(done["orderId"])
    again = api.get_order(number, by="id")
    print("order number: %d reads %s" % (number, again["orderId"]))

    print("ledger (newest first):")
    for entry in api.call("GET", "/ledger?pageSize=5")["entries"]:
        print("  %s %.2f -> %.2f %s" % (entry["type"], entry["amountUsd"], entry["balanceAfterUsd"], entry.get("orderId") or ""))

    if server:
        ours = lambda event: event["type"] == "order.completed" and event["data"]["orderId"] == done["orderId"]
        received = receive_webhooks(server, secret, ours)
        server.server_close()
        if not received:
            sys.exit("webhook: no verified order.completed for %s" % done["orderId"])
        print("webhook: %s %s verified (webhook-id %s)" % (received[1]["type"], done["orderId"], received[0]))


if __name__ == "__main__":
    main()
