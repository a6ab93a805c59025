import { invalidField } from './errors.js';

// Committed lists rather than a dependency or the runtime's ICU data, so that what "exists" never changes
// with the Node.js version. Checked against Intl.DisplayNames / Intl.supportedValuesOf of Node 20 (ICU 7x).

/** The 249 officially assigned ISO 3166-1 alpha-2 country codes (no user-assigned codes such as XK). */
const COUNTRIES = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO
JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR
MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO
RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV
TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`;

/**
 * ISO 4217 currency codes a price can be in: the circulating currencies (as ICU lists them), VED, and the
 * fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW); not precious metals, bond units or XTS/XXX.
 */
const CURRENCIES = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF
CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD
GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP
LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN
PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS
TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XDR XOF XPF XSU YER
ZAR ZMW ZWG ZWL`;

const codes = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

export const COUNTRY_CODES: ReadonlySet<string> = codes(COUNTRIES);
export const CURRENCY_CODES: ReadonlySet<string> = codes(CURRENCIES);

/** Whether `code` is an assigned ISO 3166-1 alpha-2 code, exactly as written (upper-case). */
export const isCountryCode = (code: string): boolean => COUNTRY_CODES.has(code);

/** Whether `code` is an ISO 4217 currency code of the list above, exactly as written (upper-case). */
export const isCurrencyCode = (code: string): boolean => CURRENCY_CODES.has(code);

/** 400 `invalid_request` on `field` unless `currency` (when sent) is an ISO 4217 code of the list above. */
export function checkCurrencyCode(currency: string | null | undefined, field = 'currency'): void {
  if (currency != null && !isCurrencyCode(currency)) {
    const named = field.endsWith('currency') ? `${field} ${currency}` : `${field} names ${currency}, which`;
    throw invalidField(field, `${named} is not an ISO 4217 currency code; use one such as EUR or USD.`);
  }
}
