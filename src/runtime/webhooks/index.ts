export { Webhooks, WebhookRefused, WEBHOOKS_FILE, type WebhookFlag, type WebhooksApi, type WebhooksOptions } from './service';
export { addressRefusal, checkWebhookUrl, deliveryBody, signature } from './policy';
export type { DeliveryTuning } from './target';
