#!/bin/sh
# Stands in for Prisma's native schema engine, which cannot be downloaded here. `prisma generate`
# only asks it for its version; anything else (migrate, db push) must fail loudly, never silently.
# Migrations are made with `npm run db:new` (WASM engine) and applied by src/db/migrate.ts.
if [ "$1" = "--version" ]; then echo "schema-engine-cli 0edf323efd1d98336f3f0a68684b56f689b900d3"; exit 0; fi
echo "The native Prisma schema engine is not available; use npm run db:new / npm run migrate." >&2
exit 1
