// An order's state in one badge: its status, "refused" for a placement the wallet could not cover,
// and a red flag when it waits for an admin.
export function OrderStatusBadge({
  status,
  orderCreated,
  needsAdmin,
}: {
  status: string;
  orderCreated: boolean;
  needsAdmin: boolean;
}) {
  const refused = status === "cancelled" && !orderCreated;
  return (
    <>
      <span className={`badge ${refused ? "refused" : status}`}>{refused ? "refused" : status}</span>
      {needsAdmin && (status === "pending" || status === "processing") ? (
        <>
          {" "}
          <span className="badge flag">needs admin</span>
        </>
      ) : null}
    </>
  );
}
