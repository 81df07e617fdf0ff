// SSRF safety for webhook URLs. A destination is resolved once and every address it resolves to
// must be a public unicast address; the request then connects to the address checked here
// (send-webhook.ts pins it), so a DNS answer that changes between check and connect (rebinding)
// cannot redirect a delivery to the inside.
//
// WEBHOOKS_ALLOW_PRIVATE=1 is the development switch (docs/webhooks.md): it allows http:// and
// loopback, private and unique-local addresses for a receiver on your own machine. It is refused
// in production, and cloud metadata addresses stay refused even with it. It also opens any port;
// otherwise only WEBHOOK_PORTS are accepted, so an endpoint cannot probe other services' ports.
//
// A refusal names what was written in the URL, never what a host name resolved to: the reason is
// shown to the account (the bot, /webhook list), and echoing DNS answers would map internal names.
import dns from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { env, isProduction, type Env } from "../config/env";
import { firstRow } from "../db/first-row";

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface DestinationPolicy {
  /** The development switch: http and loopback/private addresses allowed. */
  allowPrivate: boolean;
  resolve: Resolver;
}

export class DestinationRefused extends Error {}

const MAX_URL_LENGTH = 2048;
/** The ports a webhook URL may name outside development (docs/webhooks.md). */
export const WEBHOOK_PORTS = [443, 8443] as const;
// AWS, GCP and Azure (IPv4 and AWS's IPv6), ECS task metadata, Alibaba Cloud.
const METADATA_ADDRESSES = new Set(
  ["169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"].map((a) =>
    ipaddr.parse(a).toNormalizedString(),
  ),
);
// Ranges the development switch opens; everything else that is not public unicast stays refused.
const DEVELOPMENT_RANGES = new Set(["loopback", "private", "uniqueLocal"]);
// IPv6 forms that carry an IPv4 address (NAT64, 6to4, Teredo, SIIT and the deprecated
// IPv4-compatible ::a.b.c.d): they can lead to any IPv4 host, private ones included.
const EMBEDDING_RANGES = new Set(["ipv4Compatible", "rfc6052", "rfc6145", "6to4", "teredo"]);

/**
 * Parses an address, IPv6 through the WHATWG URL parser first: ipaddr.js reads `::a.b.c.d` as
 * IPv4-mapped (`::ffff:a.b.c.d`), which would let `::8.8.8.8`-style addresses pass as their IPv4.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (!ipaddr.IPv6.isValid(address)) return ipaddr.parse(address);
  let canonical: string;
  try {
    canonical = new URL(`http://[${address.replace(/%.*$/, "")}]/`).hostname.slice(1, -1);
  } catch {
    canonical = address;
  }
  return ipaddr.IPv6.parse(canonical);
}

/** ipaddr.js's range, with ::/96 apart from :: and ::1 named `ipv4Compatible` (it calls it unicast). */
function rangeOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = parsed.range();
  if (
    parsed.kind() === "ipv6" &&
    range === "unicast" &&
    (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)
  )
    return "ipv4Compatible";
  return range;
}

export const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

export function webhookPolicyFromEnv(
  resolve: Resolver = systemResolver,
  config: Pick<Env, "nodeEnv" | "webhooksAllowPrivate"> = env(),
): DestinationPolicy {
  if (config.webhooksAllowPrivate && isProduction(config)) {
    throw new Error("WEBHOOKS_ALLOW_PRIVATE=1 is a development switch and is refused in production");
  }
  return { allowPrivate: config.webhooksAllowPrivate, resolve };
}

/** Why an address may not receive webhooks, or undefined when it may. */
export function refusalOfAddress(address: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = parseAddress(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const compact = parsed.toString();
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return `${compact} is a cloud metadata address`;
  const range = rangeOf(parsed);
  if (range === "unicast") return undefined;
  if (allowPrivate && DEVELOPMENT_RANGES.has(range)) return undefined;
  if (EMBEDDING_RANGES.has(range)) return `${compact} is an IPv6 address that embeds an IPv4 address`;
  return `${compact} is a ${range} address`;
}

/**
 * Checks a URL's form (no resolution): https (http only with the development switch), a port of
 * WEBHOOK_PORTS (any with the switch), no credentials.
 */
export function parseWebhookUrl(input: string, allowPrivate: boolean): URL {
  if (input.length > MAX_URL_LENGTH)
    throw new DestinationRefused(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new DestinationRefused("not a URL");
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new DestinationRefused(allowPrivate ? "the URL must be http or https" : "the URL must be https");
  }
  if (url.username || url.password) throw new DestinationRefused("the URL must not contain a user name or password");
  // URL leaves the port empty when it is the scheme's default (443 for https).
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (!allowPrivate && !(WEBHOOK_PORTS as readonly number[]).includes(port))
    throw new DestinationRefused(`the URL's port must be one of ${WEBHOOK_PORTS.join(", ")}`);
  return url;
}

/** Resolves the URL's host and refuses it unless every address is allowed; returns the one to connect to. */
export async function resolveDestination(
  input: string,
  policy: DestinationPolicy,
): Promise<{ url: URL } & ResolvedAddress> {
  const url = parseWebhookUrl(input, policy.allowPrivate);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === "ipv6" ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      throw new DestinationRefused(`${host} does not resolve`);
    }
    if (addresses.length === 0) throw new DestinationRefused(`${host} does not resolve`);
  }
  // Every address must pass: a host answering one public and one private address is refused.
  // For a name, which address and why stay unsaid (the DNS answer is not the account's to see).
  for (const candidate of addresses) {
    const refusal = refusalOfAddress(candidate.address, policy.allowPrivate);
    if (refusal)
      throw new DestinationRefused(host === candidate.address ? refusal : `${host} resolves to a non-public address`);
  }
  return { url, ...firstRow(addresses, "the resolver") };
}
