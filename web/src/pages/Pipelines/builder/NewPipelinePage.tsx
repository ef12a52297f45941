/** /app/pipelines/new: the builder for a new pipeline (editors and admins). */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { useSession } from '../../../app/session';
import { usePageTitle } from '../../../components/usePageTitle';
import { emptyPipeline } from './draft';
import { PipelineForm } from './PipelineForm';
import { DraftStepPreview } from './StepPreview';
import '../Pipelines.css';

export function NewPipelinePage() {
  usePageTitle('New pipeline');
  const navigate = useNavigate();
  const { mayCreate } = useSession();
  const [params] = useSearchParams();
  const [initial] = useState(() => {
    const draft = emptyPipeline();
    const source = Number(params.get('source'));
    return Number.isInteger(source) && source > 0 ? { ...draft, sourceDatasetId: source } : draft;
  });
  return (
    <div className="pipelines-page">
      <p>
        <Link to="/pipelines">Pipelines</Link>
      </p>
      <h1>New pipeline</h1>
      {!mayCreate && (
        <p className="notice notice--warn">Your role may not create pipelines: the service will refuse to save this one.</p>
      )}
      <PipelineForm
        initial={initial}
        onSaved={(pipeline) => navigate(`/pipelines/${pipeline.id}`)}
        stepExtra={(draft, index) => <DraftStepPreview draft={draft} index={index} />}
      />
    </div>
  );
}
