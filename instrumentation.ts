// Next.js runs register() once per server process before serving requests.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installPeerAddressStamp } = await import("./lib/http/peer-address");
  installPeerAddressStamp();
}
