/**
 * A tracking URL as shown to a shopper: the URL when it is http(s), else null. The contract refuses other schemes
 * on write, but rows written before it did may hold one, and a `javascript:` or `data:` URL made a link (in an
 * e-mail, on a storefront's order page) runs or shows whatever it holds.
 */
export function webTrackingUrl(url: string | null): string | null {
  return url !== null && /^https?:\/\//i.test(url) ? url : null;
}
