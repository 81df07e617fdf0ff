"use client";
// The side navigation; a client component only to mark the current section.
import Link from "next/link";
import { usePathname } from "next/navigation";

const SECTIONS = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/orders", label: "Orders" },
  { href: "/admin/accounts", label: "Accounts" },
  { href: "/admin/deposits", label: "Deposits" },
  { href: "/admin/catalog", label: "Catalog" },
  { href: "/admin/tiers", label: "Tiers" },
  { href: "/admin/suppliers", label: "Suppliers" },
  { href: "/admin/webhooks", label: "Webhooks" },
  { href: "/admin/settings", label: "Settings" },
  { href: "/admin/admins", label: "Admins" },
  { href: "/admin/audit", label: "Audit log" },
];

export function NavLinks() {
  const pathname = usePathname();
  return (
    <>
      {SECTIONS.map((section) => {
        const current =
          section.href === "/admin"
            ? pathname === "/admin"
            : pathname === section.href || pathname.startsWith(section.href + "/");
        return (
          <Link key={section.href} href={section.href} aria-current={current ? "page" : undefined} prefetch={false}>
            {section.label}
          </Link>
        );
      })}
    </>
  );
}
