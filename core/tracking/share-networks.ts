// The social networks a message's share links lead to (`${urls.share_facebook}`, …): a fixed
// list, so `/t/s/{network}/{token}` can only ever redirect to one of these share pages, each
// given the message's online version (its `/t/v/` link) to share.

export const SHARE_NETWORKS = ['facebook', 'twitter', 'linkedin'] as const;
export type ShareNetwork = (typeof SHARE_NETWORKS)[number];

const SHARE_PAGES: Record<ShareNetwork, string> = {
  facebook: 'https://www.facebook.com/sharer/sharer.php?u=',
  twitter: 'https://twitter.com/intent/tweet?url=',
  linkedin: 'https://www.linkedin.com/sharing/share-offsite/?url=',
};

export function isShareNetwork(value: string): value is ShareNetwork {
  return (SHARE_NETWORKS as readonly string[]).includes(value);
}

/** The network's share page for `url` (the online version of a message). */
export function sharePage(network: ShareNetwork, url: string): string {
  return `${SHARE_PAGES[network]}${encodeURIComponent(url)}`;
}
