// String order for sorting: UTF-16 code units, as `<` compares them, which is
// Go's byte order for the ASCII names the API uses (sort.Strings). Not
// localeCompare: besides a locale-dependent order, its first call loads ICU's
// collation data, ~3 MB more resident for the life of the process.
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
