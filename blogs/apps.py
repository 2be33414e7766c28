from django.apps import AppConfig


class BlogsConfig(AppConfig):
    name = "blogs"
