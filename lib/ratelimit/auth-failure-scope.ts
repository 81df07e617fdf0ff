// Whom a failed authentication is counted against: the client's address for IPv4, its /64 for IPv6
// (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give one client
// 2^64 budgets).
import { parseIp } from "../net/ip";

export function authFailureScope(clientIp: string): string {
  const address = parseIp(clientIp);
  if (!address) return clientIp;
  if (address.kind() === "ipv4") return address.toString();
  const parts = address.toByteArray();
  // An IPv6 address is 16 bytes; the first 8 are its /64.
  const hextets = [0, 2, 4, 6].map((i) => ((parts[i]! << 8) | parts[i + 1]!).toString(16));
  return `${hextets.join(":")}::/64`;
}
