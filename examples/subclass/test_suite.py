from conformance.testing import *  # noqa: F403  (every suite class)
from conformance.testing import implementation_fixture

impl = implementation_fixture("reference")  # your "package.module", or an Implementation
