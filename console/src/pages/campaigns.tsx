// The campaigns pages: the list, a new campaign, a campaign's page (state, actions, validation,
// settings), its content editor with a live preview, and its report.
import type { ConsoleRoute } from '../routes';
import { CampaignList } from './campaigns/list';
import { CampaignPage, NewCampaign } from './campaigns/edit';
import { CampaignContentPage } from './campaigns/content';
import { CampaignReportPage } from './campaigns/report';
import './campaigns/campaigns.css';

// '/campaigns/new' before '/campaigns/:id': the router takes the first match.
export const campaignRoutes: ConsoleRoute[] = [
  { path: '/campaigns', component: CampaignList },
  { path: '/campaigns/new', component: NewCampaign },
  { path: '/campaigns/:id/content', component: CampaignContentPage },
  { path: '/campaigns/:id/report', component: CampaignReportPage },
  { path: '/campaigns/:id', component: CampaignPage },
];
