import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A throwaway self-signed certificate (P-256, one day) valid for the given names, 127.0.0.1 and ::1; needs openssl. */
export function selfSignedCertificate(dnsNames: string[]): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'self-signed-'));
  try {
    const altNames = [...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1', 'IP:::1'].join(',');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${dnsNames[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${altNames}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe', timeout: 10_000 },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
