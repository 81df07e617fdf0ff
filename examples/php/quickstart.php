<?php
// The quickstart in PHP (7.4+, no extension beyond the core: HTTP through streams, hash_hmac):
// from your API key to a completed order, its ledger entry and a verified webhook.
//
//   TOPUP_API_URL=http://localhost:3000 TOPUP_API_KEY=svc_... php quickstart.php
//
// 1. reads the balance and the catalog;
// 2. places an order for the 60 UC pack with your own `trxid` (its idempotency key: sending it
//    again never buys twice);
// 3. waits for it to finish, then reads it back by its order number;
// 4. reads the ledger, newest first;
// 5. with WEBHOOK_SECRET (the endpoint's whsec_... secret the bot's /webhook add showed) and
//    WEBHOOK_LISTEN (the host:port that endpoint's URL points at, e.g. 127.0.0.1:8080), receives
//    the order's `order.completed` delivery and verifies its Standard Webhooks signature.
//
// Copy what you need: TopupApi (calls, errors, safe retries, waiting) and verify_webhook(). In a
// web endpoint, verify the raw body as received:
//   $event = verify_webhook(getenv('WEBHOOK_SECRET'), getallheaders(), file_get_contents('php://input'));

/** A failure answer: switch on $code (the error reference lists every code). */
class TopupApiError extends Exception
{
    public $status;
    public $errorCode;
    public $retryAfter;

    public function __construct(int $status, string $code, string $message, ?int $retryAfter = null)
    {
        parent::__construct("$status $code: $message");
        $this->status = $status;
        $this->errorCode = $code;
        $this->retryAfter = $retryAfter;
    }
}

class TopupApi
{
    // Codes whose retry, unchanged, can succeed; an order retried with the same trxid never buys twice.
    const RETRYABLE = ['RATE_LIMIT', 'DUPLICATE_IN_FLIGHT', 'RATE_LIMIT_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'];

    private $baseUrl;
    private $apiKey;

    public function __construct(string $baseUrl, string $apiKey)
    {
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->apiKey = $apiKey;
    }

    /** One API call, retried on the answers whose retry can succeed (after Retry-After). */
    public function call(string $method, string $path, ?array $body = null, int $attempts = 4): array
    {
        for ($attempt = 0; ; $attempt++) {
            try {
                return $this->send($method, $path, $body);
            } catch (TopupApiError $error) {
                if (!in_array($error->errorCode, self::RETRYABLE, true) || $attempt === $attempts - 1) throw $error;
                sleep($error->retryAfter ?? 2 ** $attempt);
            }
        }
    }

    private function send(string $method, string $path, ?array $body): array
    {
        $headers = ["X-API-Key: {$this->apiKey}", 'Accept: application/json'];
        $options = ['method' => $method, 'ignore_errors' => true, 'timeout' => 60];
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
            $options['content'] = json_encode($body);
        }
        $options['header'] = implode("\r\n", $headers);
        $text = @file_get_contents($this->baseUrl . $path, false, stream_context_create(['http' => $options]));
        $responseHeaders = function_exists('http_get_last_response_headers')
            ? (http_get_last_response_headers() ?? [])
            : ($http_response_header ?? []);
        if ($text === false || !$responseHeaders) throw new TopupApiError(0, 'NETWORK_ERROR', "no answer from {$this->baseUrl}");
        preg_match('{^HTTP/\S+ (\d{3})}', $responseHeaders[0], $status);
        $answer = json_decode($text, true) ?? [];
        if ((int) $status[1] < 400) return $answer;
        $retryAfter = null;
        foreach ($responseHeaders as $line) {
            if (preg_match('/^retry-after:\s*(\d+)/i', $line, $m)) $retryAfter = (int) $m[1];
        }
        throw new TopupApiError((int) $status[1], $answer['code'] ?? "HTTP_$status[1]", $answer['error'] ?? '', $retryAfter);
    }

    public function placeOrder(string $pid, string $trxid, array $fields = []): array
    {
        return $this->call('POST', '/orders', ['pid' => $pid, 'trxid' => $trxid] + $fields);
    }

    public function getOrder(string $reference, int $wait = 0, ?string $by = null): array
    {
        $query = http_build_query(array_filter(['wait' => $wait, 'by' => $by]));
        return $this->call('GET', '/orders/' . rawurlencode($reference) . ($query === '' ? '' : "?$query"));
    }

    /** The order once completed or cancelled: each call is held up to 30 s until it finishes. */
    public function waitForOrder(string $reference, int $timeout = 120): array
    {
        $deadline = time() + $timeout;
        while (true) {
            $order = $this->getOrder($reference, 30);
            if (in_array($order['status'], ['completed', 'cancelled'], true) || time() > $deadline) return $order;
        }
    }
}

/** The order number, the numeric form of an order reference: the public id's third part in base36. */
function order_number(string $publicId): int
{
    return intval(explode('-', $publicId)[2], 36);
}

class WebhookVerificationError extends Exception
{
}

/**
 * The event of a delivery whose signature and timestamp check out (Standard Webhooks).
 * $secret: the endpoint's "whsec_..." secret; $headers: name => value (any case); $body: the raw
 * body as received, before any parsing. Deliveries are at least once: dedupe on webhook-id.
 */
function verify_webhook(string $secret, array $headers, string $body, int $tolerance = 300, ?int $now = null): array
{
    $headers = array_change_key_case($headers, CASE_LOWER);
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    $signatures = $headers['webhook-signature'] ?? '';
    if ($id === '' || $signatures === '' || !ctype_digit($timestamp)) {
        throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
    }
    if (abs(($now ?? time()) - (int) $timestamp) > $tolerance) throw new WebhookVerificationError('timestamp too far from now');
    $key = base64_decode(strpos($secret, 'whsec_') === 0 ? substr($secret, 6) : $secret);
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
    // Several space-separated signatures while a rotated secret overlaps: any one may match.
    foreach (explode(' ', $signatures) as $candidate) {
        [$version, $signature] = array_pad(explode(',', $candidate, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $signature)) return json_decode($body, true);
    }
    throw new WebhookVerificationError('no signature matches');
}

/** One HTTP request from an accepted connection: [headers, raw body]. */
function read_request($connection): array
{
    $headers = [];
    fgets($connection); // the request line
    while (($line = fgets($connection)) !== false && rtrim($line) !== '') {
        [$name, $value] = array_pad(explode(':', $line, 2), 2, '');
        $headers[strtolower(trim($name))] = trim($value);
    }
    $length = (int) ($headers['content-length'] ?? 0);
    $body = '';
    while (strlen($body) < $length && !feof($connection)) $body .= fread($connection, $length - strlen($body));
    return [$headers, $body];
}

/** Answers deliveries on $server (verified: 204, otherwise 400) until $until($event) holds. */
function receive_webhooks($server, string $secret, callable $until, int $timeout = 60): ?array
{
    $deadline = time() + $timeout;
    while (time() < $deadline) {
        $connection = @stream_socket_accept($server, 1);
        if ($connection === false) continue;
        stream_set_timeout($connection, 10);
        [$headers, $body] = read_request($connection);
        try {
            $event = verify_webhook($secret, $headers, $body);
            fwrite($connection, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
        } catch (WebhookVerificationError $error) {
            echo "webhook: refused ({$error->getMessage()})\n";
            fwrite($connection, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            $event = null;
        }
        fclose($connection);
        if ($event !== null && $until($event)) return [$headers['webhook-id'], $event];
    }
    return null;
}

function fail(string $message): void
{
    fwrite(STDERR, "$message\n");
    exit(1);
}

function main(): void
{
    $key = getenv('TOPUP_API_KEY');
    if (!$key) fail('set TOPUP_API_KEY to your key (npm start prints the demo key)');
    $api = new TopupApi(getenv('TOPUP_API_URL') ?: 'http://localhost:3000', $key);
    $trxid = getenv('TRXID') ?: 'quickstart-php-' . time();
    $secret = getenv('WEBHOOK_SECRET');
    $listen = getenv('WEBHOOK_LISTEN');
    // Listening before the order is placed: a delivery that comes early waits in the socket's queue.
    $server = null;
    if ($secret && $listen) {
        $server = stream_socket_server("tcp://$listen", $errno, $errstr);
        if ($server === false) fail("cannot listen on $listen: $errstr");
    }

    $balance = $api->call('GET', '/balance');
    printf("balance: %.2f %s\n", $balance['balanceUsd'], $balance['currency']);
    foreach ($api->call('GET', '/products')['products'] as $product) {
        if ($product['id'] === 'SVCBR60') $pack = $product;
    }
    printf("pack: %s (%s, %s) %.2f USD\n", $pack['id'], $pack['gameName'], $pack['packName'], $pack['price']);

    $placed = $api->placeOrder('SVCBR60', $trxid, ['userId' => '12345678']);
    printf("placed: %s %s (trxid %s)\n", $placed['orderId'], $placed['status'], $trxid);
    $done = $api->waitForOrder($trxid); // the trxid is an order reference too
    printf("finished: %s %s\n", $done['orderId'], $done['status']);
    $number = order_number($done['orderId']);
    printf("order number: %d reads %s\n", $number, $api->getOrder((string) $number, 0, 'id')['orderId']);

    echo "ledger (newest first):\n";
    foreach ($api->call('GET', '/ledger?pageSize=5')['entries'] as $entry) {
        printf("  %s %.2f -> %.2f %s\n", $entry['type'], $entry['amountUsd'], $entry['balanceAfterUsd'], $entry['orderId'] ?? '');
    }

    if ($server) {
        $ours = function (array $event) use ($done) {
            return $event['type'] === 'order.completed' && $event['data']['orderId'] === $done['orderId'];
        };
        $received = receive_webhooks($server, $secret, $ours);
        fclose($server);
        if ($received === null) fail("webhook: no verified order.completed for {$done['orderId']}");
        printf("webhook: %s %s verified (webhook-id %s)\n", $received[1]['type'], $done['orderId'], $received[0]);
    }
}

// Run as a script; included, it only defines the functions and classes above.
if (PHP_SAPI === 'cli' && realpath($_SERVER['SCRIPT_FILENAME'] ?? '') === __FILE__) main();
