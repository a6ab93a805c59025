/** The JSON body of a raw fetch answer, for malformed-input tests that bypass the SDK. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (response: Response): Promise<any> => response.json();
