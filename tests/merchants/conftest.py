import pytest

from shops.models import ShopStaff
from tests.factories import ShopFactory, UserFactory

# Decisions enqueue the claim's notification; run it as enqueued.


@pytest.fixture(autouse=True)
def _tasks_run_eagerly(eager_tasks: None) -> None:
    pass


@pytest.fixture
def shop(db):
    return ShopFactory()


@pytest.fixture
def owner(shop):
    """The owner of `shop`."""
    user = UserFactory()
    ShopStaff.objects.create(shop=shop, user=user, role=ShopStaff.Role.OWNER)
    return user


@pytest.fixture
def clerk(shop):
    """A clerk of `shop`."""
    user = UserFactory()
    ShopStaff.objects.create(shop=shop, user=user, role=ShopStaff.Role.CLERK)
    return user
