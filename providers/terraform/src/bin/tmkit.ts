/**
 * Entry point of terraform-provider-tmkit. The build bundles it (with grpc-js, protobufjs, msgpack and the
 * descriptor) into dist/providers/terraform/bin/terraform-provider-tmkit.js: one file to load keeps the
 * start-up low (Terraform starts the provider several times per command).
 */
import { serve } from '../plugin';
import { tmkitProvider } from '../main';

void serve(tmkitProvider, { name: 'terraform-provider-tmkit' });
