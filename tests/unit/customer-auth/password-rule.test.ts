import { describe, expect, test } from '@jest/globals';
import { passwordProblem } from '../../../src/modules/customer-auth/password-rule.js';

describe('passwordProblem (the password rule: 8-128 chars including an uppercase letter, a lowercase letter and a digit)', () => {
  test.each(['Winter-Trail-2026', 'Abcdefg1', `Ab1${'x'.repeat(125)}`, 'Ärger-über-7', 'Пароль-2026'])(
    '%s complies',
    (password) => {
      expect(passwordProblem(password)).toBeUndefined();
    },
  );

  test.each([
    ['abcdefg1', 'password needs an uppercase letter.'],
    ['ABCDEFG1', 'password needs a lowercase letter.'],
    ['Abcdefgh', 'password needs a digit.'],
    ['abcdefgh', 'password needs an uppercase letter and a digit.'],
    ['12345678', 'password needs an uppercase letter and a lowercase letter.'],
    ['--------', 'password needs an uppercase letter, a lowercase letter and a digit.'],
    ['Ab1', 'password must be 8-128 characters long.'],
    ['ab', 'password must be 8-128 characters long and needs an uppercase letter and a digit.'],
    [`Ab1${'x'.repeat(126)}`, 'password must be 8-128 characters long.'],
  ])('%s: %s', (password, message) => {
    expect(passwordProblem(password)).toBe(message);
  });

  test('length counts characters, not UTF-16 units: seven emoji and a letter are too short', () => {
    expect(passwordProblem('Aa1😀😀😀😀')).toBe('password must be 8-128 characters long.');
    expect(passwordProblem('Aa1😀😀😀😀😀')).toBeUndefined();
  });

  test('names the field it is given', () => {
    expect(passwordProblem('short', 'new_password')).toMatch(/^new_password /);
  });
});
