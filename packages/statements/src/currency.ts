/**
 * The statement's currency from its text: an ISO code printed as such, else a currency symbol, else
 * country marks ("$" is told apart by New Zealand / Australia / Canada marks). A bare "$" names no
 * currency: the result is then null and the API keeps the currency declared at upload (the
 * statement's own currency wins only when the document itself names it).
 */
const ISO = ['USD', 'GBP', 'EUR', 'AUD', 'NZD', 'CAD', 'INR', 'ZAR', 'SGD', 'HKD', 'CHF', 'JPY'];

export function detectCurrency(text: string): string | null {
  const sample = text.slice(0, 60_000);
  const counts = new Map<string, number>();
  const add = (c: string, n = 1) => counts.set(c, (counts.get(c) ?? 0) + n);
  // ISO codes next to an amount or in a "currency" label
  for (const m of sample.matchAll(/\b(USD|GBP|EUR|AUD|NZD|CAD|INR|ZAR|SGD|HKD|CHF|JPY)\b/g)) add(m[1], 3);
  for (const m of sample.matchAll(/\b(NZ|A|AU|C|CA|US|HK|S)\$/g))
    add({ NZ: 'NZD', A: 'AUD', AU: 'AUD', C: 'CAD', CA: 'CAD', US: 'USD', HK: 'HKD', S: 'SGD' }[m[1]]!, 3);
  for (const m of sample.matchAll(/£|€|₹|\bRs\.?\s?\d/g)) add(m[0] === '£' ? 'GBP' : m[0] === '€' ? 'EUR' : 'INR', 2);
  if (counts.size) return [...counts].sort((a, b) => b[1] - a[1] || ISO.indexOf(a[0]) - ISO.indexOf(b[0]))[0][0];
  // NZ account numbers print as bank-branch-account-suffix (01-2345-0678901-00)
  if (/\bNew Zealand\b|\bNZ\b|\bIRD\b|\b\d{2}-\d{4}-\d{7}-\d{2,3}\b/.test(sample)) return 'NZD';
  if (/\bAustralia\b|\bBSB\b|\bABN\b/.test(sample)) return 'AUD';
  if (/\bCanada\b|\bTransit\b.*\bInstitution\b/.test(sample)) return 'CAD';
  if (/\bsort code\b/i.test(sample)) return 'GBP';
  if (/\bIFSC\b|\bNEFT\b|\bUPI\b|\bIMPS\b/.test(sample)) return 'INR';
  return null;
}
