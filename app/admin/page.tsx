import { getPrisma } from "@/lib/db/prisma";

export const dynamic = "force-dynamic";

export default async function AdminOverviewPage() {
  const prisma = getPrisma();
  const [accounts, orders, lines] = await Promise.all([prisma.account.count(), prisma.order.count(), prisma.gameLine.count()]);
  return (
    <main style={{ padding: 24 }}>
      <h1>Operations</h1>
      <p>
        {accounts} accounts · {orders} orders · {lines} game lines
      </p>
    </main>
  );
}
