/** The JSON body of a raw fetch answer, for malformed-input tests that bypass the SDK. */

export const json = (response: Response): Promise<any> => response.json();
