import { getPrisma } from "../db/prisma";
import { generateApiKey } from "./api-key-format";

/** Creates a key for the account. The plain key is returned once and never stored. */
export async function createApiKey(
  accountId: number,
  options: { name?: string; plainKey?: { key: string; hash: string; prefix: string } } = {},
) {
  const generated = options.plainKey ?? generateApiKey();
  const row = await getPrisma().apiKey.create({
    data: { accountId, keyHash: generated.hash, prefix: generated.prefix, name: options.name },
  });
  return { id: row.id, key: generated.key, prefix: row.prefix };
}
