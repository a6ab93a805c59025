import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const assetsDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist'));

/** The files of the reference page, with their content types. */
export const DOCS_ASSETS = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

const loaded = new Map<DocsAsset, string>();

/** The asset's text, read from the swagger-ui-dist package once per process. */
export function docsAsset(file: DocsAsset): string {
  let text = loaded.get(file);
  if (text === undefined) {
    text = readFileSync(path.join(assetsDir, file), 'utf8');
    loaded.set(file, text);
  }
  return text;
}

/**
 * The reference page: Swagger UI over /openapi.json, everything from this host (no validator badge, no
 * external favicon or font), deep links per operation, the try-it-out console off by default.
 */
export const docsPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Commerce Platform API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body { margin: 0; } .swagger-ui .topbar { display: none; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script>
    // The document is asked for at once, while the browser loads and compiles the bundle, not after it.
    const documentLoad = fetch('/openapi.json', { headers: { Accept: 'application/json' } }).then((response) =>
      response.ok ? response.json() : Promise.reject(new Error('/openapi.json answered ' + response.status)),
    );
  </script>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    // Swagger UI resolves the $refs of an operation when it is opened (and of the security schemes at load).
    // For an OpenAPI 3.1 document its resolver refracts the whole document into ApiDOM on every call: about
    // 2.5 s per call for this document. Every $ref of the document points into #/components, so the subtree
    // is resolved with the resolver Swagger UI keeps for 3.0 documents (a fraction of that), over the document
    // without the other paths (which nothing refers to, and which the resolver would walk through). The page
    // still renders the document as 3.1: it reads the version from the unresolved document.
    const fastResolve = () => ({
      afterLoad() {
        const resolveSubtree = this.fn.resolveSubtree;
        this.fn.resolveSubtree = (spec, path, options) => {
          const paths = path[0] === 'paths' && spec.paths ? { [path[1]]: spec.paths[path[1]] } : {};
          return resolveSubtree({ ...spec, openapi: '3.0.3', paths }, path, options);
        };
      },
    });
    // /openapi.json is JSON: parsed as such, not with the YAML parser Swagger UI uses for any document.
    const jsonParse = () => ({
      statePlugins: {
        spec: {
          actions: {
            parseToJson: (text) => ({ specActions, specSelectors, errActions }) => {
              let json;
              try {
                json = JSON.parse(text || specSelectors.specStr());
              } catch (error) {
                return errActions.newSpecErr({ source: 'parser', level: 'error', message: String(error) });
              }
              errActions.clear({ source: 'parser' });
              return specActions.updateJsonSpec(json && typeof json === 'object' ? json : {});
            },
          },
        },
      },
    });
    const options = {
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      docExpansion: 'none',
      defaultModelsExpandDepth: 0,
      displayOperationId: true,
      tryItOutEnabled: false,
      presets: [SwaggerUIBundle.presets.apis],
      plugins: [fastResolve, jsonParse],
      layout: 'BaseLayout',
    };
    // Should the early request fail, Swagger UI asks for the document itself (and shows what went wrong).
    documentLoad.then(
      (spec) => { window.ui = SwaggerUIBundle({ ...options, spec }); },
      () => { window.ui = SwaggerUIBundle({ ...options, url: '/openapi.json' }); },
    );
  </script>
</body>
</html>
`;
