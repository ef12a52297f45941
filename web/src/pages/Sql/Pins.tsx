/** The versions a link pinned: which, and a way back to the current ones. */
import type { Dataset, QueryResult, VersionPin } from '../../api/gen/types.gen';

interface Props {
  pins: VersionPin[];
  result: QueryResult | undefined;
  datasets: Dataset[];
  onUnpin: () => void;
}

export function Pins({ pins, result, datasets, onUnpin }: Props) {
  const nameOf = (datasetId: number) =>
    result?.inputs.find((input) => input.dataset_id === datasetId)?.name ??
    datasets.find((dataset) => dataset.id === datasetId)?.name ??
    `dataset #${datasetId}`;
  return (
    <div className="notice sql-pins" role="group" aria-labelledby="sql-pins-title">
      <p id="sql-pins-title">
        <strong>Versions pinned</strong> (from a link): {pins.map((pin) => `${nameOf(pin.dataset_id)}@${pin.version}`).join(', ')}.
        Runs read these versions, not the current ones.
      </p>
      <button type="button" className="button" onClick={onUnpin}>
        Unpin: run against the current versions
      </button>
    </div>
  );
}
