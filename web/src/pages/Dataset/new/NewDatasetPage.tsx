// Being written: replaced by the screen's owner.
export function NewDatasetPage() {
  return null;
}
