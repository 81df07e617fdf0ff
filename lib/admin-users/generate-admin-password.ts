import crypto from "node:crypto";

/** 24 characters from a 57-letter alphabet without look-alikes: about 140 bits. */
export function generateAdminPassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  return Array.from({ length: 24 }, () => alphabet[crypto.randomInt(alphabet.length)]).join("");
}
