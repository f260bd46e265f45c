/** A JSON value as JSON.parse gives it: the config, the API descriptions and the tests' configs use it. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
