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
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/openapi.json',
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      docExpansion: 'none',
      defaultModelsExpandDepth: 0,
      displayOperationId: true,
      tryItOutEnabled: false,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    });
  </script>
</body>
</html>
`;
