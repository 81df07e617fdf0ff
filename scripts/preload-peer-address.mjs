// Loaded with `node --import` into Next's dev server by `npm run dev` (scripts/dev.ts).
import { installPeerAddressStamp } from "../lib/http/peer-address-stamp.mjs";

installPeerAddressStamp();
