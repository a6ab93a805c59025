import { describe, expect, test } from '@jest/globals';
import { subscriptionUrlProblem } from '../../../src/modules/webhooks/subscription-url.js';

const withHint = (problem: string) =>
  `${problem} To deliver to a receiver on this machine or network during development, start the server with ALLOW_PRIVATE_NETWORK_TARGETS=true.`;

describe('subscriptionUrlProblem', () => {
  test.each([
    'https://hooks.example.com/commerce',
    'https://hooks.example.com:8443/a?b=c',
    'https://93.184.215.14/hook',
    'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
    'https://hooks.localhost.example.com/hook', // a name: checked on every delivery, after DNS
  ])('accepts %s', (url) => {
    expect(subscriptionUrlProblem(url, false)).toBeUndefined();
  });

  test.each([
    ['http://hooks.example.com/commerce', 'url must be an https:// URL.'],
    ['https://user:pass@hooks.example.com/', 'url is not usable: the target URL must not contain credentials.'],
    ['https://127.0.0.1/hook', 'url must not point to a non-public address (127.0.0.1 is loopback).'],
    ['https://10.1.2.3/hook', 'url must not point to a non-public address (10.1.2.3 is private network).'],
    [
      'https://169.254.169.254/latest/meta-data',
      'url must not point to a non-public address (169.254.169.254 is link-local).',
    ],
    ['https://[::1]/hook', 'url must not point to a non-public address (::1 is loopback).'],
    ['https://2130706433/hook', 'url must not point to a non-public address (127.0.0.1 is loopback).'],
    [
      'https://[::ffff:10.0.0.1]/hook',
      'url must not point to a non-public address (::ffff:a00:1 is IPv4-mapped 10.0.0.1: private network).',
    ],
  ])('refuses %s', (url, problem) => {
    expect(subscriptionUrlProblem(url, false)).toBe(
      problem.startsWith('url must not point') ? withHint(problem) : problem,
    );
  });

  test.each([
    ['https://localhost:4020/hook', 'localhost'],
    ['https://LOCALHOST/hook', 'localhost'],
    ['https://shop.localhost/hook', 'shop.localhost'],
  ])('refuses %s like a loopback address literal, with the same hint', (url, host) => {
    expect(subscriptionUrlProblem(url, false)).toBe(
      withHint(`url must not point to a non-public address (${host} is loopback).`),
    );
    expect(subscriptionUrlProblem('https://127.0.0.1:4020/hook', false)).toBe(
      withHint('url must not point to a non-public address (127.0.0.1 is loopback).'),
    );
  });

  test('allows non-public address literals and localhost when private network targets are allowed (development and tests)', () => {
    expect(subscriptionUrlProblem('https://127.0.0.1:8443/hook', true)).toBeUndefined();
    expect(subscriptionUrlProblem('https://localhost:8443/hook', true)).toBeUndefined();
    expect(subscriptionUrlProblem('http://127.0.0.1:8443/hook', true)).toBe('url must be an https:// URL.');
  });
});
