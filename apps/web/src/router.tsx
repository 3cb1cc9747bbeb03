import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { Root } from './components/Root';
import { PipelinePage, parsePipelineSearch } from './pages/Pipeline';
import { DealPage } from './pages/Deal';
import { ReviewPage } from './pages/Review';
import { ReviewQueuePage } from './pages/ReviewQueue';
import { SettingsPage } from './pages/Settings';
import { NotFound } from './components/NotFound';

const rootRoute = createRootRoute({ component: Root, notFoundComponent: NotFound });

export const pipelineRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  validateSearch: parsePipelineSearch,
  component: PipelinePage,
});

export const dealRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/deals/$dealId',
  component: DealPage,
});

export const reviewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/deals/$dealId/documents/$documentId',
  component: ReviewPage,
});

export const reviewQueueRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/review',
  component: ReviewQueuePage,
});

export const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/settings',
  component: SettingsPage,
});

export const router = createRouter({
  routeTree: rootRoute.addChildren([pipelineRoute, dealRoute, reviewRoute, reviewQueueRoute, settingsRoute]),
  // the API serves the app under /app (apps/api/src/platform/http/web-app.ts)
  basepath: '/app',
  defaultPreload: false,
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
