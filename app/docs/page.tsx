// The API reference for integrators, rendered from the OpenAPI document the service serves at
// /openapi.json (the same route specs and zod schemas the handlers parse with).
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { publicRoutes } from "@/app/api/public-routes";

export const metadata = { title: "Top-up API reference" };

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  $ref?: string;
  example?: unknown;
};
type ErrorCode = { status: number; error: string; when: string; retryable: boolean; action: string };
type Document = ReturnType<typeof buildOpenApiDocument> & {
  components?: { schemas?: Record<string, Schema> };
  "x-error-codes"?: Record<string, ErrorCode>;
};

function resolve(schema: Schema | undefined, doc: Document): Schema | undefined {
  if (schema?.$ref) return doc.components?.schemas?.[schema.$ref.split("/").pop()!];
  return schema;
}

function typeLabel(schema: Schema | undefined, doc: Document): string {
  const s = resolve(schema, doc);
  if (!s) return "";
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.anyOf) return s.anyOf.map((v) => typeLabel(v, doc)).join(" | ");
  if (s.type === "array") return `${typeLabel(s.items, doc)}[]`;
  if (schema?.$ref) return schema.$ref.split("/").pop()!;
  return Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any");
}

function Fields({ schema, doc }: { schema: Schema | undefined; doc: Document }) {
  const s = resolve(schema, doc);
  if (!s?.properties) return <code>{typeLabel(schema, doc)}</code>;
  return (
    <table className="fields">
      <tbody>
        {Object.entries(s.properties).map(([name, field]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
              {s.required?.includes(name) ? <span className="req"> required</span> : null}
            </td>
            <td>
              <code>{typeLabel(field, doc)}</code>
            </td>
            <td>{resolve(field, doc)?.description ?? field.description ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function DocsPage() {
  const doc = buildOpenApiDocument(publicRoutes) as Document;
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, any>).map(([method, op]) => ({ path, method, op })),
  );
  return (
    <main className="docs">
      <style>{`
        .docs { max-width: 980px; margin: 0 auto; padding: 24px; line-height: 1.5; color: #1b1f24; }
        .docs h2 { border-top: 1px solid #ddd; padding-top: 20px; margin-top: 32px; }
        .method { display: inline-block; min-width: 56px; font-weight: 700; text-transform: uppercase; }
        .get { color: #0a7d32; } .post { color: #0b5cad; }
        .fields { border-collapse: collapse; width: 100%; margin: 8px 0; }
        .fields td { border-bottom: 1px solid #eee; padding: 4px 8px; vertical-align: top; }
        .req { color: #b42318; font-size: 12px; }
        code { background: #f4f4f5; padding: 1px 4px; border-radius: 3px; }
        nav a { margin-right: 12px; }
      `}</style>
      <h1>{doc.info.title}</h1>
      <p>{doc.info.description}</p>
      <p>
        Authenticate every call with <code>X-API-Key: &lt;key&gt;</code> or <code>Authorization: Bearer &lt;key&gt;</code>.
        Machine-readable document: <a href="/openapi.json">/openapi.json</a>.
      </p>
      <nav>
        {operations.map(({ path, method }) => (
          <a key={method + path} href={`#${method}-${path}`}>
            {method.toUpperCase()} {path}
          </a>
        ))}
        <a href="#errors">Errors</a>
      </nav>
      {operations.map(({ path, method, op }) => (
        <section key={method + path} id={`${method}-${path}`}>
          <h2>
            <span className={`method ${method}`}>{method}</span> <code>{path}</code>
          </h2>
          <p>
            <strong>{op.summary}</strong>
          </p>
          {op.description ? <p>{op.description}</p> : null}
          {op.parameters?.length ? (
            <>
              <h3>Parameters</h3>
              <table className="fields">
                <tbody>
                  {op.parameters.map((p: any) => (
                    <tr key={p.name}>
                      <td>
                        <code>{p.name}</code> <em>({p.in})</em>
                      </td>
                      <td>
                        <code>{typeLabel(p.schema, doc)}</code>
                      </td>
                      <td>{p.description ?? p.schema?.description ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
          {op.requestBody ? (
            <>
              <h3>Body</h3>
              <Fields schema={op.requestBody.content["application/json"].schema} doc={doc} />
            </>
          ) : null}
          <h3>Responses</h3>
          <table className="fields">
            <tbody>
              {Object.entries(op.responses as Record<string, any>).map(([status, response]) => (
                <tr key={status}>
                  <td>
                    <strong>{status}</strong>
                  </td>
                  <td>{response.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {op.responses["200"]?.content ? <Fields schema={op.responses["200"].content["application/json"].schema} doc={doc} /> : null}
        </section>
      ))}
      <section id="errors">
        <h2>Errors</h2>
        <p>
          Every failure is <code>{"{ success: false, error, code }"}</code>. Switch on <code>code</code>; retry only where a
          retry can succeed.
        </p>
        <table className="fields">
          <tbody>
            <tr>
              <th>HTTP</th>
              <th>code</th>
              <th>when</th>
              <th>retry can succeed</th>
              <th>what to do</th>
            </tr>
            {Object.entries(doc["x-error-codes"] ?? {}).map(([code, entry]) => (
              <tr key={code} id={`error-${code}`}>
                <td>{entry.status}</td>
                <td>
                  <code>{code}</code>
                  <br />
                  <small>{entry.error}</small>
                </td>
                <td>{entry.when}</td>
                <td>{entry.retryable ? "yes" : "no"}</td>
                <td>{entry.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}
