from django.apps import AppConfig


class FollowsConfig(AppConfig):
    name = "follows"
