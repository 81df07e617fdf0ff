// Every path of the route table has its Next.js route file, so `next start` serves what the lean
// host serves: app/api/<path>/route.ts, with ":param" segments as "[param]" folders, for the public
// API; app/<path>/route.ts for the operational routes.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { publicRoutes } from "@/app/api/public-routes";
import { operationalRoutes } from "@/app/api/routes";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("route files", () => {
  const paths = [...new Set(publicRoutes.map((route) => route.spec.path))];

  it.each(paths)("%s has app/api/.../route.ts taking its handlers from the table", (routePath) => {
    const folder = routePath.replace(/:([A-Za-z]+)/g, "[$1]");
    const file = path.join(root, "app", "api", ...folder.split("/").filter(Boolean), "route.ts");
    expect(fs.existsSync(file), `${file} is missing`).toBe(true);
    expect(fs.readFileSync(file, "utf8")).toContain(`routeHandlers("${routePath}")`);
  });

  // Operational routes are served at their own path only: app/<path>/route.ts.
  it.each(operationalRoutes.map((route) => route.path))("%s has app/.../route.ts", (routePath) => {
    const file = path.join(root, "app", ...routePath.split("/").filter(Boolean), "route.ts");
    expect(fs.existsSync(file), `${file} is missing`).toBe(true);
  });
});
