import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { installErrorInterceptor } from './api/errors';
import { configureClient } from './api/session';
import { App } from './app/App';
import './styles/base.css';

configureClient();
installErrorInterceptor();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
