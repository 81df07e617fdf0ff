export declare const PEER_ADDRESS_HEADER: "x-topup-peer-address";
/** Stamps each request's socket address into its headers (lib/http/peer-address.ts). Idempotent. */
export declare function installPeerAddressStamp(): void;
