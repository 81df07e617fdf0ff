export declare const PEER_ADDRESS_HEADER: "x-topup-peer-address";
/** Stamps each request's socket address into its headers (lib/http/peer-address.ts). Idempotent. */
export declare function installPeerAddressStamp(): void;
/** The random prefix this process's stamps carry; undefined until the stamp is installed. */
export declare function peerAddressNonce(): string | undefined;
