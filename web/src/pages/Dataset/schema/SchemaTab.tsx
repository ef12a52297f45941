// Being written: replaced by the screen's owner.
export function SchemaTab() {
  return null;
}
