// The host names a browser may use to reach a server listening on `host`: Next's dev server refuses
// its own assets and HMR socket (/_next/*) to pages opened at any other host (allowedDevOrigins in
// next.config.ts). A wildcard listen address means every interface of this machine, and its name.
import os from "node:os";
import net from "node:net";

const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]"]);

/** An address as URL.hostname spells it: IPv6 in brackets. */
function asHostname(address: string): string {
  return net.isIPv6(address) ? `[${address}]` : address.toLowerCase();
}

export function listLocalHostnames(
  host: string,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
  machineName: string = os.hostname(),
): string[] {
  const listen = host.trim().replace(/^\[(.*)\]$/, "$1");
  // Loopback always: a server on a wildcard or loopback address answers there, and a page opened
  // at 127.0.0.1 must not be refused because Next only knows "localhost".
  const names = new Set(["localhost", "127.0.0.1", "[::1]"]);
  if (WILDCARDS.has(listen)) {
    for (const address of Object.values(interfaces).flat()) {
      // Link-local IPv6 needs a zone id, which no URL carries.
      if (address && !(address.family === "IPv6" && address.scopeid)) names.add(asHostname(address.address));
    }
    if (machineName) names.add(machineName.toLowerCase());
  } else {
    names.add(asHostname(listen));
  }
  return [...names];
}
