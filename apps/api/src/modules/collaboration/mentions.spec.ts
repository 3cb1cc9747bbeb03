import { mentionHandles, resolveMentions } from './mentions';

const users = [
  { id: 1, email: 'Ana@example.test' },
  { id: 2, email: 'bo@example.test' },
  { id: 3, email: 'bo@other.test' },
  { id: 4, email: 'cy.d@example.test' },
];

describe('mentions', () => {
  it('finds handles and full emails, lowercased, once each, without trailing dots', () => {
    expect(mentionHandles('@Ana please check, cc @bo@other.test and @cy.d. Thanks @ana!')).toEqual(['ana', 'bo@other.test', 'cy.d']);
  });

  it('ignores an email written without a leading @ and a doubled @', () => {
    expect(mentionHandles('mail ana@example.test or x@@ana')).toEqual([]);
  });

  it('resolves a full email case-insensitively and a handle only when it is unambiguous', () => {
    expect(resolveMentions('@ana and @bo', users)).toEqual([1]);
    expect(resolveMentions('@BO@example.test and @bo@other.test', users)).toEqual([2, 3]);
    expect(resolveMentions('@cy.d, @nobody, @nobody@example.test', users)).toEqual([4]);
  });

  it('mentions a user once however often the text names them', () => {
    expect(resolveMentions('@ana @Ana@example.test @ana', users)).toEqual([1]);
  });
});
