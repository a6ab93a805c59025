// Reads `npm audit --omit=dev --json` (the file named by argv[2]) and says what it means for CI, on its last line
// as `npm audit: PASSED|FAILED|NOT CHECKED ...` (.ci/run repeats that line before its test summary):
// exit 1 when a high or critical advisory affects a production dependency; exit 0 when the report shows none.
// When the registry cannot answer audit requests (the mirror here answers the advisory endpoint with an HTTP
// error, not a report), there is no advisory data and nothing was checked: the line says NOT CHECKED, never
// PASSED, and the exit is 0, or 2 (a failure) with AUDIT_REQUIRED=1, for a host whose registry answers audits.
import { readFileSync } from 'node:fs';

let report;
try {
  report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
} catch (error) {
  report = { error: { summary: `unreadable audit output (${error.message})` } };
}
const counts = report?.metadata?.vulnerabilities;
if (counts) {
  const serious = (counts.high ?? 0) + (counts.critical ?? 0);
  console.log(
    `npm audit --omit=dev: ${counts.critical ?? 0} critical, ${counts.high ?? 0} high, ${counts.moderate ?? 0} moderate, ${counts.low ?? 0} low`,
  );
  if (serious === 0) {
    console.log('npm audit: PASSED: no high or critical advisory in production dependencies.');
    process.exit(0);
  }
  for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
    if (v.severity === 'high' || v.severity === 'critical')
      console.log(
        `  ${v.severity}: ${name} ${v.range} (fix: ${v.fixAvailable ? JSON.stringify(v.fixAvailable) : 'none'})`,
      );
  }
  console.log(
    'npm audit: FAILED: pin patched versions of the packages above (package.json, or "overrides" for transitive ones).',
  );
  process.exit(1);
}
const why = report?.statusCode
  ? `HTTP ${report.statusCode} from ${report.uri ?? 'the registry'}`
  : report?.error?.summary || report?.message || 'no report';
console.log(
  `npm audit --omit=dev: the registry did not answer the audit request (${why}); no advisory data is available here.`,
);
if (process.env.AUDIT_REQUIRED === '1') {
  console.log(`npm audit: NOT CHECKED, FAILED (${why}): no advisory data, and AUDIT_REQUIRED=1.`);
  process.exit(2);
}
console.log(
  `npm audit: NOT CHECKED (${why}): no advisory data on this host; run it where the public registry answers (AUDIT_REQUIRED=1 makes this a failure).`,
);
process.exit(0);
