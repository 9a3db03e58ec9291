import { createRouter, createWebHistory } from 'vue-router';

export const router = createRouter({
  history: createWebHistory('/console/'),
  routes: [
    { path: '/', redirect: '/tools' },
    { path: '/tools', component: () => import('./views/ToolsView.vue'), meta: { title: 'Tools' } },
    { path: '/tools/:id', component: () => import('./views/ToolView.vue'), props: true, meta: { title: 'Tool' } },
    { path: '/workflows', component: () => import('./views/WorkflowsView.vue'), meta: { title: 'Workflows' } },
    {
      path: '/workflows/:id',
      component: () => import('./views/WorkflowView.vue'),
      props: true,
      meta: { title: 'Workflow' },
    },
    {
      path: '/workflows/:id/tests',
      component: () => import('./views/TestsView.vue'),
      props: true,
      meta: { title: 'Tests' },
    },
    { path: '/runs', component: () => import('./views/RunsView.vue'), meta: { title: 'Runs' } },
    { path: '/runs/:id', component: () => import('./views/RunView.vue'), props: true, meta: { title: 'Run' } },
    { path: '/playground', component: () => import('./views/PlaygroundView.vue'), meta: { title: 'Playground' } },
    { path: '/mcp-servers', component: () => import('./views/McpServersView.vue'), meta: { title: 'MCP servers' } },
    { path: '/approvals', component: () => import('./views/ApprovalsView.vue'), meta: { title: 'Approvals' } },
    { path: '/usage', component: () => import('./views/UsageView.vue'), meta: { title: 'Usage' } },
    { path: '/quotas', component: () => import('./views/QuotasView.vue'), meta: { title: 'Quotas' } },
    { path: '/audit', component: () => import('./views/AuditView.vue'), meta: { title: 'Audit trail' } },
    { path: '/:rest(.*)*', component: () => import('./views/NotFoundView.vue'), meta: { title: 'Not found' } },
  ],
});

router.afterEach((to) => {
  document.title = `${String(to.meta.title ?? 'Console')} · ToolFlow`;
});
