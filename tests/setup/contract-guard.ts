import { afterEach, expect } from '@jest/globals';
import { contractViolations } from '../../src/http/middleware/response-check.js';

// Every response a test sees is checked against openapi.yaml; any violation fails the test that saw it.
afterEach(() => {
  const seen = contractViolations.splice(0);
  expect(seen).toEqual([]);
});
