// npm run admin:create -- <email>: creates a dashboard admin. On a terminal it asks for the
// password twice (not echoed); otherwise (a pipe, CI) it generates a strong one and prints it once.
import { withDatabase } from "./database";
import { pointAtDatabase } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { disconnectPrisma } from "@/lib/db/prisma";
import { createAdminUser, MIN_ADMIN_PASSWORD_LENGTH } from "@/lib/admin-users/create-admin-user";
import { isPlausibleEmail, normaliseAdminEmail } from "@/lib/admin-users/admin-user-record";
import { generateAdminPassword } from "@/lib/admin-users/generate-admin-password";

/** Asks on the terminal without echoing what is typed. */
function askHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    input.setRawMode(true); // before the prompt, so nothing typed after it is echoed
    process.stdout.write(question);
    input.resume();
    input.setEncoding("utf8");
    let answer = "";
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          finish();
          process.stdout.write("\n");
          resolve(answer);
          return;
        }
        if (char === "\u0003") {
          finish();
          process.stdout.write("\n");
          reject(new Error("cancelled"));
          return;
        }
        if (char === "\u007f" || char === "\b") answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    const finish = () => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
    };
    input.on("data", onData);
  });
}

async function choosePassword(): Promise<{ password: string; generated: boolean }> {
  if (!process.stdin.isTTY) return { password: generateAdminPassword(), generated: true };
  console.log(`Choose a password (at least ${MIN_ADMIN_PASSWORD_LENGTH} characters), or press Enter to generate one.`);
  const first = await askHidden("Password: ");
  if (first === "") return { password: generateAdminPassword(), generated: true };
  const second = await askHidden("Again:    ");
  if (first !== second) throw new Error("the two passwords differ");
  return { password: first, generated: false };
}

const email = process.argv[2];
if (!email || email.startsWith("-")) {
  console.error("usage: npm run admin:create -- <email>");
  process.exit(2);
}
if (!isPlausibleEmail(normaliseAdminEmail(email))) {
  console.error(`"${email}" is not an email address.`);
  process.exit(2);
}

let exitCode = 0;
try {
  const { password, generated } = await choosePassword();
  await withDatabase(async (url) => {
    await applyMigrations(url);
    pointAtDatabase(url);
    try {
      const result = await createAdminUser({ email, password, role: "owner", actor: "cli:admin-create" });
      switch (result.status) {
        case "created":
          console.log(`Admin ${result.admin.email} created. Sign in at /admin/login.`);
          if (generated) console.log(`Password (shown only now, keep it safe): ${password}`);
          console.log(
            "It is an owner. Its first sign-in sets up two-factor (/admin/two-factor-setup: the password again, then a code from an authenticator app); no dashboard page opens before.",
          );
          break;
        case "exists":
          console.error(`An admin with the email ${email} already exists: nothing changed.`);
          exitCode = 1;
          break;
        case "invalid_email":
          console.error(`"${email}" is not an email address.`);
          exitCode = 2;
          break;
        case "weak_password":
          console.error(`The password must have at least ${result.minLength} characters.`);
          exitCode = 2;
          break;
      }
    } finally {
      await disconnectPrisma();
      await closePool();
    }
  });
} catch (error) {
  console.error("[admin:create] failed:", error instanceof Error ? error.message : error);
  exitCode = 1;
}
process.exit(exitCode);
