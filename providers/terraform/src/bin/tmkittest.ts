/** Entry point of the TEST-ONLY terraform-provider-tmkittest (bundled like terraform-provider-tmkit). */
import { serve } from '../plugin';
import { tmkittest } from '../testing/tmkittest';

void serve(tmkittest, { name: 'terraform-provider-tmkittest' });
