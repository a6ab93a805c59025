/** The languages e-mail templates are written in. */
export type EmailLanguage = 'en' | 'de' | 'fr';

/** The language of an e-mail: the customer's locale, else the project's; languages without templates fall back to English. */
export function emailLanguage(customerLocale: string | null | undefined, projectLocale: string): EmailLanguage {
  const language = (customerLocale ?? projectLocale).split('-')[0].toLowerCase();
  return language === 'de' || language === 'fr' ? language : 'en';
}
