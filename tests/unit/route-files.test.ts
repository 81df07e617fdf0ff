// Every route of the table is its route file's own export, so `next start` serves exactly what the
// lean host serves: app/api/<path>/route.ts (":param" segments as "[param]" folders) for the public
// API, app/<path>/route.ts for the operational routes. And every public route a route file exports
// is in the table, so none is left out of the lean host, /openapi.json, /docs and the client.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { publicRoutes } from "@/app/api/public-routes";
import { operationalRoutes } from "@/app/api/routes";

const root = path.resolve(import.meta.dirname, "..", "..");

async function routeFile(...segments: string[]): Promise<Record<string, unknown>> {
  return import(path.join(root, "app", ...segments, "route.ts"));
}

function folders(routePath: string): string[] {
  return routePath
    .replace(/:([A-Za-z]+)/g, "[$1]")
    .split("/")
    .filter(Boolean);
}

describe("route files", () => {
  it.each(publicRoutes.map((route) => [`${route.spec.method} ${route.spec.path}`, route] as const))(
    "%s is exported by app/api/.../route.ts",
    async (_, route) => {
      const file = await routeFile("api", ...folders(route.spec.path));
      expect(file[route.spec.method]).toBe(route);
    },
  );

  it.each(operationalRoutes.map((route) => [route.path, route] as const))(
    "%s is exported by app/.../route.ts",
    async (_, route) => {
      const file = await routeFile(...folders(route.path));
      for (const [method, handler] of Object.entries(route.handlers)) expect(file[method]).toBe(handler);
    },
  );

  it("lists every public route a route file under app/api exports", async () => {
    const files = fs
      .readdirSync(path.join(root, "app", "api"), { recursive: true, encoding: "utf8" })
      .filter((file) => path.basename(file) === "route.ts")
      .filter((file) => fs.readFileSync(path.join(root, "app", "api", file), "utf8").includes("publicRoute("));
    expect(files.length).toBeGreaterThan(0);
    const listed = new Set<unknown>(publicRoutes);
    for (const file of files) {
      const exports = Object.entries(await routeFile("api", path.dirname(file)));
      const routes = exports.filter(([, value]) => typeof value === "function" && "spec" in value);
      expect(routes.length, `${file} exports a public route`).toBeGreaterThan(0);
      for (const [name, route] of routes)
        expect(listed.has(route), `${file}: ${name} is in public-routes.ts`).toBe(true);
    }
  });

  it("every route file answers every method (JSON 405 or 404 rather than Next's own)", async () => {
    for (const route of publicRoutes) {
      const file = await routeFile("api", ...folders(route.spec.path));
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        expect(typeof file[method], `${route.spec.path} ${method}`).toBe("function");
      }
    }
  });
});
