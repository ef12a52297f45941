/** /app/pipelines/new: the builder for a new pipeline (editors and admins). ?source=<id>
 *  picks the source; a proposal in the router's state (the SQL console's "make this a
 *  pipeline": a source and steps) fills both. */
import { useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';

import { useSession } from '../../../app/session';
import { usePageTitle } from '../../../components/usePageTitle';
import { draftFromProposal, emptyPipeline } from './draft';
import type { ProposedPipeline } from './draft';
import { PipelineForm } from './PipelineForm';
import { DraftStepPreview } from './StepPreview';
import '../Pipelines.css';

export function NewPipelinePage() {
  usePageTitle('New pipeline');
  const navigate = useNavigate();
  const { mayCreate } = useSession();
  const [params] = useSearchParams();
  const proposal = (useLocation().state as { proposal?: ProposedPipeline } | null)?.proposal;
  const [initial] = useState(() => {
    if (proposal) return draftFromProposal(proposal);
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
      {proposal && (
        <p className="notice">
          Filled in from the SQL console: its dataset is the source and its query the SQL step. Name the pipeline and its
          output, then create it.
        </p>
      )}
      <PipelineForm
        initial={initial}
        onSaved={(pipeline) => navigate(`/pipelines/${pipeline.id}`)}
        stepExtra={(draft, index) => <DraftStepPreview draft={draft} index={index} />}
      />
    </div>
  );
}
