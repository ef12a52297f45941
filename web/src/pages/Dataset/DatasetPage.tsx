// Being written: replaced by the screen's owner.
export function DatasetPage() {
  return null;
}
